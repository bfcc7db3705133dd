"""A real DuckDB file with the shop tables (or any tables), for the engine conformance suite."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine_data import Table, base_type, shop_tables
from fixtures_servers import missing
from fixtures_seed import SENTINEL_TEXT


@dataclass
class DuckDB:
    path: Path
    url: str
    sentinel_dir: Path
    sentinel_file: Path

    def checksums(self) -> dict[str, str]:
        """Read through Wenshu's own read-only engine: DuckDB refuses a second configuration of one file."""
        from wenshu.engines.execute import execute_readonly

        def rows(sql: str) -> list:
            return execute_readonly(self.url, sql, row_limit=100_000, timeout_s=30).rows

        names = sorted(r[0] for r in rows("SELECT table_name FROM duckdb_tables()"))
        return {n: hashlib.sha256(repr(rows(f'SELECT * FROM "{n}" ORDER BY 1')).encode()).hexdigest() for n in names}


def load_tables(path: Path, tables: dict[str, Table]) -> str:
    """Create `tables` in the DuckDB file at `path`; returns its datasource URL."""
    import duckdb
    import pandas

    conn = duckdb.connect(str(path))
    try:
        for name, (columns, rows) in tables.items():
            cols = ", ".join(f'"{c}" {"VARCHAR" if base_type(t) == "TEXT" else base_type(t)}{t[len(base_type(t)):]}'
                             for c, t in columns)
            conn.execute(f'CREATE TABLE "{name}" ({cols})')
            if rows:  # through a DataFrame: DuckDB's executemany inserts row by row
                frame = pandas.DataFrame([list(r) for r in rows], columns=[c for c, _ in columns])
                conn.register("_load", frame)
                conn.execute(f'INSERT INTO "{name}" SELECT * FROM _load')
                conn.unregister("_load")
    finally:
        conn.close()
    return f"duckdb:///{path}"


@pytest.fixture(scope="session")
def duckdb_db(tmp_path_factory):
    try:
        import duckdb_engine  # noqa: F401
    except ImportError:
        missing("duckdb-engine is not installed (pip install -e '.[dev]')")
    base = tmp_path_factory.mktemp("duckdb")
    sentinel_dir = base / "sentinel"
    sentinel_dir.mkdir()
    (sentinel_dir / "secret.txt").write_text(SENTINEL_TEXT + "\n")
    path = base / "shop.duckdb"
    url = load_tables(path, shop_tables())
    yield DuckDB(path, url, sentinel_dir, sentinel_dir / "secret.txt")
    shutil.rmtree(base, ignore_errors=True)
