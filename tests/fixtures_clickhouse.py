"""ClickHouse for the tests: chDB (ClickHouse embedded in this process), no server to start.

chDB hosts one engine per process, bound to one data directory, so every dataset of a test session
lives in one directory (`chdb_root`) as a ClickHouse database of its own, chosen by the URL's
``?database=``: the shop tables in ``shop`` (`clickhouse_db`), any other portable tables through
`load_tables` (the demo database: ``load_tables(chdb_url("demo"), engine_data.sqlite_tables(path))``).
Tables are MergeTree, ordered by their first column. Missing chdb skips the tests, unless
`WENSHU_REQUIRE_SERVERS=1`.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from engine_data import Table, portable_type, shop_tables
from fixtures_servers import missing
from fixtures_seed import SENTINEL_TEXT

_root: Path | None = None


def chdb_root() -> Path:
    """The one chDB data directory of this process (created on first use)."""
    global _root
    if _root is None:
        try:
            import chdb  # noqa: F401
            import wenshu.engines.chdb_dialect  # noqa: F401 - registers chdb:// with SQLAlchemy
        except ImportError as err:
            missing(f"chdb / clickhouse-connect are not installed: {err}")
        _root = Path(tempfile.mkdtemp(prefix="wenshu-chdb-"))
    return _root


def chdb_url(database: str) -> str:
    return f"chdb://{chdb_root()}?database={database}"


def clickhouse_type(portable: str, nullable: bool) -> str:
    t = portable_type(portable)  # "INTEGER PRIMARY KEY" -> INTEGER, VARCHAR(20) -> TEXT, ...
    if m := re.match(r"(?:NUMERIC|DECIMAL)\s*\((\d+)\s*,\s*(\d+)\)", t):
        base = f"Decimal({m[1]}, {m[2]})"
    else:
        base = {"INTEGER": "Int64", "REAL": "Float64", "DATE": "Date", "TIMESTAMP": "DateTime"}.get(t, "String")
    return f"Nullable({base})" if nullable else base


def _value(portable: str, value):
    """A portable value as the Python type clickhouse-connect inserts for the column."""
    if value is None:
        return None
    t = portable_type(portable)
    if t == "DATE":
        return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    if t == "TIMESTAMP":
        return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    if t.startswith(("NUMERIC", "DECIMAL")):
        return Decimal(str(value))
    if t == "INTEGER":
        return int(value)
    if t == "REAL":
        return float(value)
    return str(value)


def _quote(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def load_tables(url_or_dir: str | Path, tables: dict[str, Table]) -> str:
    """Create the URL's database (a directory: its `default` database; it must be the process's one
    chDB directory, see `chdb_root`) and load `tables` into it, replacing tables of the same names.
    Returns the chdb:// URL of that database."""
    text = str(url_or_dir)
    if not text.startswith("chdb:"):
        Path(text).mkdir(parents=True, exist_ok=True)
    url = text if text.startswith("chdb:") else f"chdb://{Path(text).resolve()}?database=default"
    database = make_url(url).query.get("database") or "default"
    engine = sa.create_engine(url.split("?", 1)[0])  # the default database: ours may not exist yet
    try:
        with engine.connect() as conn:
            raw = conn.connection.driver_connection
            raw.command(f"CREATE DATABASE IF NOT EXISTS {_quote(database)}")
            for name, (columns, rows) in tables.items():
                nullable = [any(r[i] is None for r in rows) for i in range(len(columns))]
                key = _quote(columns[0][0]) if not nullable[0] else "tuple()"
                cols = ", ".join(f"{_quote(c)} {clickhouse_type(t, n)}" for (c, t), n in zip(columns, nullable))
                target = f"{_quote(database)}.{_quote(name)}"
                raw.command(f"DROP TABLE IF EXISTS {target}")
                raw.command(f"CREATE TABLE {target} ({cols}) ENGINE = MergeTree ORDER BY {key}")
                data = [[_value(t, v) for (_, t), v in zip(columns, row)] for row in rows]
                if data:
                    raw.client.insert(name, data, column_names=[c for c, _ in columns], database=database)
    finally:
        engine.dispose()
    return url


def checksums(url: str) -> dict[str, str]:
    """table -> SHA-256 of its rows ordered by the first column, for every table of the URL's database;
    `(databases)` -> every database of the engine (a new database or table elsewhere shows up)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            names = sorted(conn.exec_driver_sql("SHOW TABLES").scalars())
            tables = conn.exec_driver_sql(
                "SELECT database, name FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', "
                "'information_schema') ORDER BY database, name").fetchall()
            out = {"(databases)": repr(tables)}
            for table in names:
                rows = conn.exec_driver_sql(f"SELECT * FROM {_quote(table)} ORDER BY 1").fetchall()
                out[table] = hashlib.sha256(repr([tuple(map(str, r)) for r in rows]).encode()).hexdigest()
            return out
    finally:
        engine.dispose()


@dataclass
class ClickHouseDB:
    url: str  # chdb:///dir?database=shop, what Wenshu connects to
    root: Path
    sentinel_dir: Path  # a directory the engine could write to
    sentinel_file: Path  # a file whose content no query may ever return

    def checksums(self) -> dict[str, str]:
        return checksums(self.url)


@pytest.fixture(scope="session")
def clickhouse_db(tmp_path_factory) -> ClickHouseDB:
    """The shop tables (customers, orders, canary) in chDB, loaded once per session."""
    url = load_tables(chdb_url("shop"), shop_tables())
    sentinel_dir = tmp_path_factory.mktemp("chdb-sentinel")
    (sentinel_dir / "secret.txt").write_text(SENTINEL_TEXT + "\n")
    return ClickHouseDB(url, chdb_root(), sentinel_dir, sentinel_dir / "secret.txt")
