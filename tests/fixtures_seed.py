"""Seed data the engine tests share: the same `shop` tables (customers, orders, canary) on every engine,
SQLite included, and the checks that nothing changed (checksums of every table, files under a folder)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import sqlalchemy as sa

CANARY = [(1, "canary-alpha"), (2, "canary-beta"), (3, "canary-gamma")]
SENTINEL_TEXT = "WENSHU-SENTINEL-7f3a9c-must-never-be-returned"

SCHEMA = [
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(50), phone VARCHAR(20), region VARCHAR(20))",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), "
    "amount NUMERIC(10, 2), status VARCHAR(10), created_at DATE)",
    "CREATE TABLE canary (id INTEGER PRIMARY KEY, token VARCHAR(40))",
]
REGIONS = ["华东", "华北", "华南", "西南"]


def seed_rows() -> dict[str, list[tuple]]:
    customers = [(i, f"客户{i}", f"138{i:08d}", REGIONS[i % 4]) for i in range(1, 201)]
    orders = [
        (i, 1 + i % 200, round(10 + (i * 37) % 990 + 0.5, 2), ("paid", "shipped", "refunded")[i % 3],
         f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}")
        for i in range(1, 2001)
    ]  # fmt: skip
    return {"customers": customers, "orders": orders, "canary": CANARY}


def seed(conn: sa.Connection) -> None:
    """Create and fill the shop tables on an open (transactional) connection."""
    for ddl in SCHEMA:
        conn.exec_driver_sql(ddl)
    for table, rows in seed_rows().items():
        mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
        marks = ", ".join([mark] * len(rows[0]))
        conn.exec_driver_sql(f"INSERT INTO {table} VALUES ({marks})", rows)


def seed_sqlite(path: Path) -> str:
    """A SQLite file with the shop tables; returns its URL."""
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        seed(conn)
    engine.dispose()
    return f"sqlite:///{path}"


def checksums(url: str) -> dict[str, str]:
    """table -> SHA-256 of its rows in key order, for every table the database has (extra tables show up)."""
    engine = checksum_engines.get(url) or checksum_engines.setdefault(url, sa.create_engine(url))
    with engine.connect() as conn:
        out = {}
        for table in sorted(sa.inspect(conn).get_table_names()):
            rows = conn.exec_driver_sql(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            out[table] = hashlib.sha256(repr([tuple(map(str, r)) for r in rows]).encode()).hexdigest()
        return out


checksum_engines: dict[str, sa.Engine] = {}


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}
