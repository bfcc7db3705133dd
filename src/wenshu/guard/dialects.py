"""Dialect names (SQLAlchemy backend -> sqlglot) and each engine's identifier case rules."""

from __future__ import annotations

import sqlglot

DIALECTS = {
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "duckdb": "duckdb",
    "clickhouse": "clickhouse",
    "clickhousedb": "clickhouse",
    "trino": "trino",
    "mssql": "tsql",
    "oracle": "oracle",
}


def sqlglot_dialect(name: str | None) -> str:
    """The sqlglot dialect for a SQLAlchemy dialect name ('' = sqlglot's generic dialect)."""
    low = (name or "").lower().split("+", 1)[0]
    if low in DIALECTS:
        return DIALECTS[low]
    try:
        sqlglot.Dialect.get_or_raise(low)
    except (ValueError, KeyError):
        return ""
    return low


def shown(dialect: str) -> str:
    return dialect or "generic SQL"


def name_matches(written: str, real: str, *, quoted: bool, dialect: str) -> bool:
    """Whether an identifier as written in the SQL names the catalog object `real`.

    PostgreSQL folds unquoted names to lower case and compares quoted names exactly; ClickHouse
    compares every name exactly; the other engines compare table and column names without case.
    """
    if dialect == "clickhouse":
        return written == real
    if dialect == "postgres":
        return written == real if quoted else written.lower() == real.lower()
    return written.lower() == real.lower()
