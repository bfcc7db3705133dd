"""Row counts and sample values of a live table, always bounded in time and size.

Sample rows: the first `SAMPLE_ROWS` rows of a table, each value cut to
`ROW_VALUE_LEN` characters, binary columns as NULL (the schema layout "ddl" shows them under the table's `CREATE TABLE`).

Row counts: the engine's own statistics where it keeps them (its adapter's `row_estimate`:
`sqlite_stat1`, `pg_class.reltuples`, `information_schema.tables.table_rows`, ...) for big tables;
an exact `COUNT(*)` under the adapter's time limit for small ones, or when there are no statistics.

Sample values: for text columns only (binary columns are skipped), from the first `SAMPLE_SCAN`
rows; a low-cardinality column (at most `LOW_CARDINALITY` distinct values) keeps every value, a
high-cardinality one two examples. A column of at most `NAMED_VALUES` distinct values (products, brands,
teams: what questions name) also keeps them all in `names`, which only the value index reads: a question
naming 戴森吹风机 finds its column, while prompts still show two examples. Values are cut to `SAMPLE_MAX_LEN` characters; values that
are not valid text (bytes that are not UTF-8, control characters) are dropped. A table's sampling
stops after `SAMPLE_BUDGET_S` seconds, so a 2,000-column table stays cheap.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.sql import quoted_name

from wenshu.catalog import TableInfo
from wenshu.engines.registry import require

SAMPLE_SCAN = 20_000
LOW_CARDINALITY = 50
NAMED_VALUES = 500
HIGH_CARDINALITY_EXAMPLES = 2
SAMPLE_MAX_LEN = 64
SAMPLE_BUDGET_S = 5.0
SAMPLE_ROWS = 3
ROW_VALUE_LEN = 32
COUNT_TIMEOUT_S = 2.0
ESTIMATE_TRUSTED_FROM = 100_000
TEXT_MARKERS = ("CHAR", "TEXT", "CLOB", "STRING", "ENUM", "NAME", "CITEXT")
BINARY_MARKERS = ("BLOB", "BINARY", "BYTEA", "RAW", "IMAGE", "BIT")


def ident(name: str) -> quoted_name:
    return quoted_name(name, True)


def is_text(type_name: str) -> bool:
    t = (type_name or "").upper()
    if any(b in t for b in BINARY_MARKERS):
        return False
    return t == "" or any(k in t for k in TEXT_MARKERS)


def clean_value(value) -> str | None:
    """A sample value as short, printable text; None when it is not text at all."""
    if isinstance(value, bytes | bytearray | memoryview):
        return None
    text = value if isinstance(value, str) else str(value)
    try:
        text.encode("utf-8")  # lone surrogates come from undecodable bytes
    except UnicodeEncodeError:
        return None
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        return None
    text = " ".join(text.split())
    return text[:SAMPLE_MAX_LEN] or None


def _probe(conn: sa.Connection, query) -> list | None:
    """The rows of a sampling query, stored text decoded leniently; None when the engine refused it
    (the connection is made usable again; a lost connection is raised)."""
    adapter = require(conn.dialect.name)
    try:
        with adapter.lenient_text(conn):
            return conn.execute(query).all()
    except sa.exc.DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        adapter.after_failed_probe(conn)
        return None


def column_samples(conn: sa.Connection, table: str, column: str) -> tuple[list[str], bool, list[str]]:
    """(samples, low_cardinality, names) of one column; errors give no samples (the column stays usable)."""
    col = sa.column(ident(column))
    adapter = require(conn.dialect.name)
    value = adapter.sample_value(col)
    inner = (sa.select(value.label("v")).select_from(sa.table(ident(table)))
             .where(col.is_not(None)).limit(SAMPLE_SCAN).subquery("s"))
    n = sa.func.count().label("n")
    query = sa.select(inner.c.v, n).group_by(inner.c.v).order_by(n.desc(), inner.c.v).limit(NAMED_VALUES + 1)
    rows = _probe(conn, query)
    if rows is None:
        return [], False, []
    low = len(rows) <= LOW_CARDINALITY
    out: list[str] = []
    for v, _n in rows:
        text = clean_value(v)
        if text is not None and text not in out:
            out.append(text)
    if low:
        return out, True, []
    return out[:HIGH_CARDINALITY_EXAMPLES], False, (out if len(rows) <= NAMED_VALUES else [])


def fill_samples(conn: sa.Connection, table: TableInfo, budget_s: float = SAMPLE_BUDGET_S) -> None:
    """Sample the text columns of `table` (no enum annotation) until the time budget is spent."""
    deadline = time.monotonic() + budget_s
    for col in table.columns:
        if time.monotonic() > deadline:
            break
        if col.enum or not is_text(col.type):
            continue
        col.samples, col.low_cardinality, col.names = column_samples(conn, table.name, col.name)


def sample_rows(conn: sa.Connection, table: TableInfo, n: int = SAMPLE_ROWS) -> list[list[str | None]]:
    """The first `n` rows as short text, one value per column (None for NULL and binary columns);
    errors give no rows."""
    cols = [sa.null() if _is_binary(c.type) else sa.column(ident(c.name)) for c in table.columns]
    if not cols:
        return []
    rows = _probe(conn, sa.select(*cols).select_from(sa.table(ident(table.name))).limit(n)) or []
    return [[None if v is None else (clean_value(v) or "")[:ROW_VALUE_LEN] for v in row] for row in rows]


def _is_binary(type_name: str) -> bool:
    return any(b in (type_name or "").upper() for b in BINARY_MARKERS)


def fill_data(conn: sa.Connection, table: TableInfo, *, with_samples: bool = True) -> None:
    table.row_count = row_count(conn, table) if table.kind == "table" else None
    if with_samples and table.kind == "table":
        fill_samples(conn, table)
        table.sample_rows = sample_rows(conn, table)


def _estimate(conn: sa.Connection, table: str) -> int | None:
    adapter = require(conn.dialect.name)
    try:
        return adapter.row_estimate(conn, table)
    except sa.exc.DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        adapter.after_failed_probe(conn)
        return None


def row_count(conn: sa.Connection, table: TableInfo) -> int | None:
    """Cheap row count: trusted statistics for big tables, else COUNT(*) under a time limit."""
    estimate = _estimate(conn, table.name)
    if estimate is not None and estimate >= ESTIMATE_TRUSTED_FROM:
        return estimate
    query = sa.select(sa.func.count()).select_from(sa.table(ident(table.name)))
    exact = bounded_scalar(conn, query, COUNT_TIMEOUT_S)
    return exact if exact is not None else estimate


def bounded_scalar(conn: sa.Connection, query, seconds: float):
    """Run a scalar query with an engine-side time limit (the adapter's); None when it ran out of time.

    Any other error (the table vanished, the server went away) is raised to the caller."""
    return require(conn.dialect.name).bounded_scalar(conn, query, seconds)
