"""Row counts and sample values of a live table, always bounded in time and size.

Row counts: the engine's own statistics where it keeps them (`sqlite_stat1`, `pg_class.reltuples`,
`information_schema.tables.table_rows`) for big tables; an exact `COUNT(*)` under a time limit for
small ones, or when there are no statistics.

Sample values: for text columns only (binary columns are skipped), from the first `SAMPLE_SCAN`
rows; a low-cardinality column (at most `LOW_CARDINALITY` distinct values) keeps every value, a
high-cardinality one two examples. Values are cut to `SAMPLE_MAX_LEN` characters; values that
are not valid text (bytes that are not UTF-8, control characters) are dropped. A table's sampling
stops after `SAMPLE_BUDGET_S` seconds, so a 2,000-column table stays cheap.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.sql import quoted_name

from wenshu.catalog import TableInfo

SAMPLE_SCAN = 20_000
LOW_CARDINALITY = 50
HIGH_CARDINALITY_EXAMPLES = 2
SAMPLE_MAX_LEN = 64
SAMPLE_FETCH_LEN = 256
SAMPLE_BUDGET_S = 5.0
COUNT_TIMEOUT_S = 2.0
ESTIMATE_TRUSTED_FROM = 100_000
TEXT_MARKERS = ("CHAR", "TEXT", "CLOB", "STRING", "ENUM", "NAME", "CITEXT")
BINARY_MARKERS = ("BLOB", "BINARY", "BYTEA", "RAW", "IMAGE", "BIT")
SUBSTR_DIALECTS = {"sqlite", "postgresql", "mysql", "mariadb", "duckdb", "oracle", "trino", "clickhouse"}


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


@contextmanager
def lenient_text(conn: sa.Connection):
    """On SQLite, decode stored text leniently so one invalid UTF-8 value cannot abort a query."""
    raw = conn.connection.driver_connection if conn.dialect.name == "sqlite" else None
    old = getattr(raw, "text_factory", None)
    if raw is not None:
        raw.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    try:
        yield
    finally:
        if raw is not None:
            raw.text_factory = old


def column_samples(conn: sa.Connection, table: str, column: str) -> tuple[list[str], bool]:
    """(values, low_cardinality) of one column; errors give no samples (the column stays usable)."""
    col = sa.column(ident(column))
    value = col
    if conn.dialect.name in SUBSTR_DIALECTS:
        value = sa.func.substr(sa.cast(col, sa.Text) if conn.dialect.name == "postgresql" else col, 1, SAMPLE_FETCH_LEN)
    inner = (sa.select(value.label("v")).select_from(sa.table(ident(table)))
             .where(col.is_not(None)).limit(SAMPLE_SCAN).subquery("s"))
    n = sa.func.count().label("n")
    query = sa.select(inner.c.v, n).group_by(inner.c.v).order_by(n.desc(), inner.c.v).limit(LOW_CARDINALITY + 1)
    try:
        with lenient_text(conn):
            rows = conn.execute(query).all()
    except sa.exc.DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        return [], False
    low = len(rows) <= LOW_CARDINALITY
    out: list[str] = []
    for v, _n in rows:
        text = clean_value(v)
        if text is not None and text not in out:
            out.append(text)
    return (out if low else out[:HIGH_CARDINALITY_EXAMPLES]), low


def fill_samples(conn: sa.Connection, table: TableInfo, budget_s: float = SAMPLE_BUDGET_S) -> None:
    """Sample the text columns of `table` (no enum annotation) until the time budget is spent."""
    deadline = time.monotonic() + budget_s
    for col in table.columns:
        if time.monotonic() > deadline:
            break
        if col.enum or not is_text(col.type):
            continue
        col.samples, col.low_cardinality = column_samples(conn, table.name, col.name)


def fill_data(conn: sa.Connection, table: TableInfo, *, with_samples: bool = True) -> None:
    table.row_count = row_count(conn, table) if table.kind == "table" else None
    if with_samples and table.kind == "table":
        fill_samples(conn, table)


def _estimate(conn: sa.Connection, table: str) -> int | None:
    name = conn.dialect.name
    if name == "postgresql":
        sql = ("SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
               "WHERE c.relname = :t AND n.nspname = current_schema()")
    elif name in ("mysql", "mariadb"):
        sql = "SELECT table_rows FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = :t"
    elif name == "sqlite":
        sql = "SELECT stat FROM sqlite_stat1 WHERE tbl = :t LIMIT 1"
    else:
        return None
    try:
        value = conn.execute(sa.text(sql), {"t": table}).scalar()
    except sa.exc.DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        return None  # e.g. no sqlite_stat1 before the first ANALYZE
    if value is None:
        return None
    number = int(float(str(value).split()[0]))
    return number if number >= 0 else None  # reltuples is -1 before the first ANALYZE


def row_count(conn: sa.Connection, table: TableInfo) -> int | None:
    """Cheap row count: trusted statistics for big tables, else COUNT(*) under a time limit."""
    estimate = _estimate(conn, table.name)
    if estimate is not None and estimate >= ESTIMATE_TRUSTED_FROM:
        return estimate
    query = sa.select(sa.func.count()).select_from(sa.table(ident(table.name)))
    exact = bounded_scalar(conn, query, COUNT_TIMEOUT_S)
    return exact if exact is not None else estimate


def bounded_scalar(conn: sa.Connection, query, seconds: float):
    """Run a scalar query with an engine-side time limit; None when it ran out of time.

    Any other error (the table vanished, the server went away) is raised to the caller."""
    name = conn.dialect.name
    if name == "sqlite":
        raw = conn.connection.driver_connection
        deadline = time.monotonic() + seconds
        raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            return conn.execute(query).scalar()
        except sa.exc.OperationalError as exc:
            if "interrupted" in str(exc.orig):
                return None
            raise
        finally:
            raw.set_progress_handler(None, 0)
    if name == "postgresql":
        conn.exec_driver_sql(f"SET statement_timeout = {int(seconds * 1000)}")
        try:
            return conn.execute(query).scalar()
        except sa.exc.OperationalError as exc:
            if "statement timeout" in str(exc.orig):
                return None
            raise
        finally:
            conn.exec_driver_sql("RESET statement_timeout")  # back to the role/database default
    if name in ("mysql", "mariadb"):
        return _mysql_bounded(conn, query, seconds)
    return conn.execute(query).scalar()


def _mysql_bounded(conn: sa.Connection, query, seconds: float):
    mariadb = "mariadb" in str(conn.exec_driver_sql("SELECT VERSION()").scalar()).lower()
    setting = ("max_statement_time", seconds) if mariadb else ("max_execution_time", int(seconds * 1000))
    conn.exec_driver_sql(f"SET SESSION {setting[0]} = {setting[1]}")
    try:
        return conn.execute(query).scalar()
    except sa.exc.OperationalError as exc:
        if getattr(exc.orig, "args", [None])[0] in (1969, 3024):  # interrupted by the time limit
            return None
        raise
    finally:
        conn.exec_driver_sql(f"SET SESSION {setting[0]} = DEFAULT")  # back to the global value
