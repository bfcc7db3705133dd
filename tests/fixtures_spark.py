"""A local Spark SQL warehouse for the tests: the shop tables (customers, orders, canary) as parquet
under a temp dir, read through Wenshu's `spark:///path` URLs.

The JVM starts once per test session (`wenshu.engines.spark_dbapi.local_session`: `local[2]`, 127.0.0.1,
no UI, in-memory catalog); every warehouse is its own Spark database. `load_tables` writes any portable
tables (`engine_data`) into a warehouse, e.g. the demo database from `engine_data.sqlite_tables(path)`.
Without pyspark or Java the tests are skipped (failed under WENSHU_REQUIRE_SERVERS=1).
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine_data import Table, shop_tables
from fixtures_servers import missing

TEST_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"  # short-lived test JVM: start and warm up fast


def spark_type(portable: str) -> str:
    """The Spark type for a portable column type of `engine_data`."""
    t = portable.upper()
    if m := re.fullmatch(r"(?:NUMERIC|DECIMAL)\s*\((\d+),\s*(\d+)\)", t):
        return f"DECIMAL({m[1]},{m[2]})"
    return {"INTEGER": "BIGINT", "REAL": "DOUBLE", "DATE": "DATE", "TIMESTAMP": "TIMESTAMP"}.get(t, "STRING")


def _value(value, kind: str):
    if value is None:
        return None
    if kind == "BIGINT":
        return int(value)
    if kind == "DOUBLE":
        return float(value)
    if kind.startswith("DECIMAL"):
        return Decimal(str(value))
    if kind == "DATE":
        return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    if kind == "TIMESTAMP":
        return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return str(value)


def warehouse_path(url: str) -> Path:
    return Path("/" + (sa.engine.make_url(url).database or "").lstrip("/"))


def load_tables(url: str, tables: dict[str, Table]) -> None:
    """Write `tables` as parquet tables into the warehouse of a `spark:///path` URL (replacing any of the
    same name); connections opened afterwards see them."""
    from wenshu.engines.spark_session import local_session

    spark = local_session()
    root = warehouse_path(url)
    root.mkdir(parents=True, exist_ok=True)
    for name, (columns, rows) in tables.items():
        kinds = [spark_type(t) for _, t in columns]
        schema = ", ".join(f"`{c}` {k}" for (c, _), k in zip(columns, kinds, strict=True))
        data = [tuple(_value(v, k) for v, k in zip(row, kinds, strict=True)) for row in rows]
        shutil.rmtree(root / name, ignore_errors=True)
        spark.createDataFrame(data, schema).coalesce(1).write.parquet(str(root / name))


@dataclass
class SparkWarehouse:
    url: str
    path: Path
    startup_s: float

    def checksums(self) -> dict[str, str]:
        """table -> SHA-256 of its rows ordered by the first column."""
        engine = _engines.get(self.url) or _engines.setdefault(self.url, sa.create_engine(self.url))
        with engine.connect() as conn:
            out = {}
            for table in sorted(sa.inspect(conn).get_table_names()):
                rows = conn.exec_driver_sql(f"SELECT * FROM `{table}` ORDER BY 1").fetchall()
                out[table] = hashlib.sha256(repr([tuple(map(str, r)) for r in rows]).encode()).hexdigest()
            return out


_engines: dict[str, sa.Engine] = {}


@pytest.fixture(scope="session")
def spark_db(tmp_path_factory):
    import time

    try:
        import pyspark  # noqa: F401
    except ImportError:
        missing("pyspark is not installed")
    if shutil.which("java") is None:
        missing("Java is not installed (pyspark needs a JVM)")
    import wenshu.engines.spark_dialect  # noqa: F401 - registers spark://

    from wenshu.engines.spark_session import local_session

    started = time.monotonic()
    local_session(java_options=TEST_JAVA_OPTIONS)  # the JVM starts here, once
    path = tmp_path_factory.mktemp("spark") / "shop"
    url = f"spark://{path}"
    load_tables(url, shop_tables())
    yield SparkWarehouse(url, path, time.monotonic() - started)
    from wenshu.engines.connections import cached_engines

    for engine in [*cached_engines(), *_engines.values()]:
        if engine.dialect.name == "spark":
            engine.dispose()
