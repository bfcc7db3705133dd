"""ClickHouse: servers over HTTP through clickhouse-connect's SQLAlchemy dialect
(``clickhousedb://user:pw@host:8123/db``, pip ``clickhouse-connect``) and chDB, ClickHouse embedded in
this process (``chdb:///abs/dir?database=shop``, pip ``chdb clickhouse-connect``; `chdb_dialect`).

Read-only: statements run with ``readonly=1`` (no writes, no DDL, no settings changes, no table
functions that reach files, URLs or other servers), ``max_execution_time`` (the time limit) and
result caps with ``result_overflow_mode='break'``: the driver reads a whole result into memory, so the
engine stops after ``max_result_rows`` (Wenshu's row limit + 1 inside `execute`: enough to see that a
result was truncated) or ``max_result_bytes``, in blocks of at most ``max_block_size`` rows. ClickHouse
does not count constant columns (``repeat('x', 1000000)``) towards the bytes cap, so huge rows are
bounded only by the row cap and the block size.

- A server gets these settings with every statement (HTTP query parameters); it runs one statement per
  request and refuses ``INTO OUTFILE``. A user whose profile already has ``readonly=1`` cannot receive
  the time limit: give Wenshu's user ``readonly=0`` or ``2``, and Wenshu sets ``1``. The cancel timer
  kills the statement by its query id (``KILL QUERY``) from a second connection.
- chDB runs ``;``-separated statements one by one (a ``SETTINGS`` clause reaches only the last) and
  writes ``INTO OUTFILE`` files itself, so each read-only session gets a connection of its own (never
  pooled) whose session is locked for good (`chdb_dialect.lock_read_only`). Nothing interrupts a chDB
  statement from another thread: ``max_execution_time`` is its only time limit, checked between blocks.
  chDB's scalar ``file()`` reads any local file even with ``readonly=1``: only the guard's denied
  functions stop it. After a statement failed mid-result a chDB connection returns stale bytes, so it
  is replaced (`after_failed_probe`).
"""

from __future__ import annotations

import contextvars
import importlib.util
import uuid
from datetime import date

import sqlalchemy as sa

from wenshu.engines.adapter import (
    COMMON_DENIED, CONNECT_TIMEOUT_S, SAMPLE_PREFIX, DriverMissing, EngineAdapter, PlanEstimate,
)  # fmt: skip
from wenshu.engines.clickhouse_plan import worst_rows

ROW_CAP = 1_000_000  # outside `execute` (plan estimates): the engine stops sending past this many rows
BYTE_CAP = 256 * 1024 * 1024
BLOCK_ROWS = 8192  # a MergeTree granule: the first block a capped result sends is at most this big
TIMEOUT_CODES = (159, 394)  # TIMEOUT_EXCEEDED, QUERY_WAS_CANCELLED (the cancel timer's KILL QUERY)
QUERY_ID = "wenshu_query_id"
_row_cap: contextvars.ContextVar[int] = contextvars.ContextVar("wenshu_clickhouse_row_cap", default=ROW_CAP)


def _seconds(timeout_s: float) -> str:
    return f"{max(timeout_s, 0.001):.3f}"


def _limits(timeout_s: float, chdb: bool) -> dict[str, object]:
    """The settings of a read-only session, `readonly` excepted (it comes last)."""
    out: dict[str, object] = {
        "max_execution_time": _seconds(timeout_s), "timeout_overflow_mode": "throw",
        "max_result_rows": _row_cap.get(), "max_result_bytes": BYTE_CAP, "result_overflow_mode": "break",
        "max_block_size": BLOCK_ROWS, "allow_introspection_functions": 0,
    }  # fmt: skip
    if chdb:
        out["allow_python_table_function"] = 0  # chDB's Python() reads the process's Python objects
    return out


def _is_chdb(dialect) -> bool:
    return getattr(dialect, "driver", "") == "chdb"


# --- the plan estimate's shape of a statement --------------------------------------------------

class ClickHouseAdapter(EngineAdapter):
    name = "clickhouse"
    label = "ClickHouse"
    backends = ("clickhouse", "clickhousedb", "chdb")
    dialect = "clickhouse"
    packages = ("clickhouse-connect",)  # chdb:// also needs `chdb` (check_driver)
    identifiers = "exact"
    union_distinct = "UNION DISTINCT"  # a bare UNION is refused unless union_default_mode is set
    correlated_subqueries = False  # experimental in ClickHouse: chDB returned no rows for EXISTS over the outer row
    denied_functions = COMMON_DENIED | {
        "url", "urlcluster", "s3", "s3cluster", "gcs", "oss", "cosn", "file", "filecluster", "remote",
        "remotesecure", "cluster", "clusterallreplicas", "hdfs", "hdfscluster", "mysql", "postgresql",
        "jdbc", "odbc", "mongodb", "redis", "sqlite", "executable", "input", "azureblobstorage",
        "azureblobstoragecluster", "deltalake", "deltalakecluster", "deltalakes3", "deltalakeazure",
        "deltalakelocal", "hudi", "hudicluster", "iceberg", "icebergs3", "icebergazure", "iceberghdfs",
        "iceberglocal", "icebergcluster", "icebergs3cluster", "icebergazurecluster", "iceberghdfscluster",
        "paimon", "paimons3", "paimonazure", "paimonhdfs", "arrowflight", "sleepeachrow", "fuzzjson",
        "fuzzquery", "getsetting", "getsettingordefault", "getserversetting", "getmacro", "mergetreeindex",
        "mergetreeprojection", "merge", "loop", "sleep", "python", "addresstoline",
        "addresstolinewithinlines", "addresstosymbol", "demangle", "dictionary", "viewexplain",
    }  # fmt: skip
    system_schemas = frozenset({"system", "information_schema"})
    buckets = {  # toDate32: Date, Date32, DateTime(64) and ISO text alike
        "day": "formatDateTime(toDate32({c}), '%Y-%m-%d')",
        "week": "formatDateTime(toMonday(toDate32({c})), '%Y-%m-%d')",  # the week's Monday
        "month": "formatDateTime(toDate32({c}), '%Y-%m')",
        "quarter": "formatDateTime(toDate32({c}), '%Y-Q%Q')",
        "year": "formatDateTime(toDate32({c}), '%Y')",
    }
    weekday = "toString(toDayOfWeek(toDate32({c})))"  # Monday 1
    hour = "formatDateTime(toDateTime({c}), '%H')"

    def check_driver(self, url: str) -> None:
        if sa.make_url(url).get_backend_name() == "chdb" and importlib.util.find_spec("chdb") is None:
            raise DriverMissing(self.label, ("chdb", "clickhouse-connect"))
        super().check_driver(url)

    def engine_options(self, url: sa.URL) -> dict:
        if url.get_backend_name() == "chdb":
            return {"poolclass": sa.pool.NullPool}  # a locked session is never reused
        if url.get_backend_name() == "clickhousedb" or url.get_driver_name() == "connect":
            return {"connect_args": {"connect_timeout": CONNECT_TIMEOUT_S}}
        return {}

    def prepare_session(self, conn: sa.Connection, timeout_s: float) -> None:
        """chDB: lock this connection's session (the limits, then readonly = 1). A server: the same
        settings, and a fresh query id for the cancel timer, with every statement of this checkout."""
        from clickhouse_connect.cc_sqlalchemy.dialect import ClickHouseDialect

        if not isinstance(conn.dialect, ClickHouseDialect):
            raise sa.exc.ArgumentError("Wenshu reaches ClickHouse through clickhouse-connect: use clickhousedb://")
        if _is_chdb(conn.dialect):
            from wenshu.engines.chdb_dialect import lock_read_only

            lock_read_only(conn.connection.driver_connection, _limits(timeout_s, chdb=True))
            return
        conn.info[QUERY_ID] = f"wenshu-{uuid.uuid4().hex}"
        conn.execution_options(settings=_limits(timeout_s, chdb=False) | {"query_id": conn.info[QUERY_ID],
                                                                          "readonly": 1})

    def execute(self, url: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int):
        token = _row_cap.set(min(row_limit + 1, ROW_CAP))  # one row past the limit shows the truncation
        try:
            return super().execute(url, sql, row_limit=row_limit, timeout_s=timeout_s, max_bytes=max_bytes)
        finally:
            _row_cap.reset(token)

    def cancel(self, engine: sa.Engine, conn: sa.Connection) -> None:
        """A server: `KILL QUERY` by the session's query id from a second connection. chDB: nothing can
        stop a statement from another thread; `max_execution_time` stops it."""
        query_id = conn.info.get(QUERY_ID)
        if _is_chdb(engine.dialect) or not query_id:
            return
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        other = engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
        try:
            other.command(f"KILL QUERY WHERE query_id = '{query_id}' ASYNC")
        finally:
            other.close()

    def is_timeout(self, err: BaseException) -> bool:
        return getattr(err, "code", None) in TIMEOUT_CODES or "TIMEOUT_EXCEEDED" in str(err)

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate:
        """`EXPLAIN ESTIMATE` (rows each MergeTree table will read, after primary key and partition
        pruning) combined with the statement's shape (`worst_rows`): a join without an equality between
        columns (CROSS JOIN, a comma, ON 1 = 1, ON a.x <> b.y) multiplies its sides' rows, a keyed join
        takes the larger side, numbers(n) counts n; never less than all rows read. Tables the estimate
        does not cover (Memory, Log, ...) count their `system.tables.total_rows`. Never None."""
        from wenshu.engines.connections import readonly_connection, translate_error

        with readonly_connection(self, url, timeout_s) as (conn, fired):
            try:
                reads = conn.exec_driver_sql(f"EXPLAIN ESTIMATE {sql}", execution_options={"no_parameters": True})
                read_rows: dict[str, float] = {}
                for row in reads.mappings():
                    read_rows[str(row["table"])] = read_rows.get(str(row["table"]), 0.0) + float(row["rows"] or 0)
                totals = {str(n): float(r) for n, r in conn.exec_driver_sql(
                    "SELECT name, total_rows FROM system.tables WHERE database = currentDatabase() "
                    "AND total_rows IS NOT NULL", execution_options={"no_parameters": True})}
            except sa.exc.SQLAlchemyError as err:
                raise translate_error(self, err, fired, timeout_s, sql) from err
        return PlanEstimate(rows=max(worst_rows(sql, read_rows, totals), sum(read_rows.values())))

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        """The query with a statement-level time limit (and read-only); None when it ran out of time."""
        settings = {"max_execution_time": _seconds(seconds), "timeout_overflow_mode": "throw", "readonly": 1}
        try:
            return conn.execute(query, execution_options={"settings": settings}).scalar()
        except sa.exc.DBAPIError as exc:
            if not self.is_timeout(exc.orig):
                raise
            self.after_failed_probe(conn)
            return None

    def after_failed_probe(self, conn: sa.Connection) -> None:
        """chDB: a connection whose statement failed mid-result returns its stale bytes next: replace it."""
        if _is_chdb(conn.dialect):
            conn.invalidate()
            conn.rollback()  # the next statement opens a fresh connection

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        sql = "SELECT total_rows FROM system.tables WHERE database = currentDatabase() AND name = :t"
        value = conn.execute(sa.text(sql), {"t": table}).scalar()
        return None if value is None else int(value)

    def sample_value(self, column):
        return sa.func.substringUTF8(sa.func.toString(column), 1, SAMPLE_PREFIX)  # characters, not bytes

    def as_text(self, sql: str) -> str:
        return f"toString({sql})"  # keeps NULL (CAST(NULL AS String) fails)

    def date_literal(self, day: date) -> str:
        return f"toDate('{day.isoformat()}')"
