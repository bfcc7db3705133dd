"""Tables as plain data, to load the same rows into every engine the tests run: the shop seed of
`fixtures_servers` and any SQLite file (the demo database).

A table is `(columns, rows)`: columns as `(name, type)` with a portable type (INTEGER, REAL,
NUMERIC(10, 2), VARCHAR(n), TEXT, DATE, TIMESTAMP), possibly followed by PRIMARY KEY (`base_type` drops
it for engines without keys), rows as tuples of Python values (dates as ISO text).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from fixtures_seed import seed_rows

Table = tuple[list[tuple[str, str]], list[tuple]]

SHOP_COLUMNS = {
    "customers": [("id", "INTEGER"), ("name", "VARCHAR(50)"), ("phone", "VARCHAR(20)"), ("region", "VARCHAR(20)")],
    "orders": [("id", "INTEGER"), ("customer_id", "INTEGER"), ("amount", "NUMERIC(10, 2)"), ("status", "VARCHAR(10)"),
               ("created_at", "DATE")],
    "canary": [("id", "INTEGER"), ("token", "VARCHAR(40)")],
}


def base_type(portable: str) -> str:
    """The type without a PRIMARY KEY mark."""
    return portable.removesuffix(" PRIMARY KEY")


def shop_tables() -> dict[str, Table]:
    """customers (200), orders (2,000) and canary: the tables every engine's conformance run reads."""
    rows = seed_rows()
    return {name: (cols, rows[name]) for name, cols in SHOP_COLUMNS.items()}


def portable_type(declared: str) -> str:
    t = (declared or "").upper()
    if "INT" in t:
        return "INTEGER"
    if t.startswith(("DECIMAL", "NUMERIC")):
        return re.sub(r"\s+", " ", t) if "(" in t else "NUMERIC(18, 4)"
    if any(k in t for k in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    if t.startswith("TIMESTAMP") or t == "DATETIME":
        return "TIMESTAMP"
    if t == "DATE":
        return "DATE"
    return "TEXT"


def sqlite_tables(path: Path) -> dict[str, Table]:
    """Every table of a SQLite file (not its sqlite_/_wenshu_ bookkeeping) as portable tables."""
    conn = sqlite3.connect(path)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT LIKE '_wenshu_%' ORDER BY name")]
        out: dict[str, Table] = {}
        for name in names:
            cols = [(r[1], portable_type(r[2])) for r in conn.execute(f'PRAGMA table_info("{name}")')]
            out[name] = (cols, conn.execute(f'SELECT * FROM "{name}"').fetchall())
        return out
    finally:
        conn.close()


SQL_TYPES = {  # portable type -> the type a SQLAlchemy engine is given, where it differs
    "postgresql": {"REAL": "DOUBLE PRECISION"},
    "mysql": {"REAL": "DOUBLE", "TEXT": "VARCHAR(200)"},
}


def load_sql(url: str, tables: dict[str, Table]) -> str:
    """Create and fill `tables` through SQLAlchemy (SQLite, PostgreSQL, MySQL/MariaDB); returns `url`."""
    import sqlalchemy as sa

    backend = sa.make_url(url).get_backend_name()
    types = SQL_TYPES.get("mysql" if backend == "mariadb" else backend, {})
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        for name, (cols, rows) in tables.items():
            defs = ", ".join(f"{c} {types.get(base_type(t), base_type(t))}{t[len(base_type(t)):]}" for c, t in cols)
            conn.exec_driver_sql(f"CREATE TABLE {name} ({defs})")
            if rows:
                marks = ", ".join(["?" if backend == "sqlite" else "%s"] * len(cols))
                conn.exec_driver_sql(f"INSERT INTO {name} VALUES ({marks})", rows)
    engine.dispose()
    return url
