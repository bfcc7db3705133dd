"""Time buckets per SQL dialect: the label of the period a date or timestamp falls in.

Labels sort in time order and read the same on every engine for day (2026-11-02), month (2026-11),
quarter (2026-Q4) and year (2026). Weeks follow each engine's own numbering (SQLite: Monday-based
week of the year; PostgreSQL, MySQL/MariaDB and DuckDB: ISO weeks), so week labels may differ by
engine around New Year. Engine-specific SQL of the semantic layer lives here only; issue 13 moves it
into each engine's adapter.
"""

from __future__ import annotations

BUCKETS: dict[str, dict[str, str]] = {
    "sqlite": {
        "day": "date({c})",
        "week": "strftime('%Y-W%W', {c})",
        "month": "strftime('%Y-%m', {c})",
        "quarter": "strftime('%Y', {c}) || '-Q' || ((CAST(strftime('%m', {c}) AS INTEGER) + 2) / 3)",
        "year": "strftime('%Y', {c})",
    },
    "postgres": {
        "day": "to_char(CAST({c} AS DATE), 'YYYY-MM-DD')",
        "week": "to_char(CAST({c} AS DATE), 'IYYY-\"W\"IW')",
        "month": "to_char(CAST({c} AS DATE), 'YYYY-MM')",
        "quarter": "to_char(CAST({c} AS DATE), 'YYYY-\"Q\"Q')",
        "year": "to_char(CAST({c} AS DATE), 'YYYY')",
    },
    "mysql": {
        "day": "DATE_FORMAT({c}, '%Y-%m-%d')",
        "week": "DATE_FORMAT({c}, '%x-W%v')",
        "month": "DATE_FORMAT({c}, '%Y-%m')",
        "quarter": "CONCAT(YEAR({c}), '-Q', QUARTER({c}))",
        "year": "DATE_FORMAT({c}, '%Y')",
    },
    "duckdb": {
        "day": "strftime(CAST({c} AS DATE), '%Y-%m-%d')",
        "week": "strftime(CAST({c} AS DATE), '%G-W%V')",
        "month": "strftime(CAST({c} AS DATE), '%Y-%m')",
        "quarter": "strftime(CAST({c} AS DATE), '%Y') || '-Q' || quarter(CAST({c} AS DATE))",
        "year": "strftime(CAST({c} AS DATE), '%Y')",
    },
}
ALIASES = {"postgresql": "postgres", "mariadb": "mysql"}


def sqlglot_name(dialect: str) -> str:
    return ALIASES.get(dialect, dialect)


def bucket(dialect: str, grain: str, column_sql: str) -> str:
    name = sqlglot_name(dialect)
    if name not in BUCKETS:
        raise KeyError(f"no time buckets for the {dialect} dialect")
    return BUCKETS[name][grain].format(c=column_sql)


def round2(dialect: str, sql: str) -> str:
    """ROUND(x, 2): PostgreSQL rounds only numerics, so a float is cast first."""
    return f"ROUND(CAST({sql} AS NUMERIC), 2)" if sqlglot_name(dialect) == "postgres" else f"ROUND({sql}, 2)"


def as_text(dialect: str, sql: str) -> str:
    return f"CAST({sql} AS CHAR)" if sqlglot_name(dialect) == "mysql" else f"CAST({sql} AS VARCHAR)"
