"""Read-only execution (layer 4) on engines other than SQLite files, through SQLAlchemy.

What the connection itself enforces, whatever SQL arrives:

- PostgreSQL: `SET TRANSACTION READ ONLY` plus `SET LOCAL statement_timeout`, `lock_timeout` and
  `idle_in_transaction_session_timeout`; the statement runs through a server-side cursor
  (`DECLARE ... CURSOR`), which takes exactly one SELECT/VALUES statement over the extended
  protocol, so stacked statements (`SELECT 1; COMMIT; DELETE ...`) cannot run.
- MySQL/MariaDB: `SET SESSION TRANSACTION READ ONLY` plus `max_statement_time` (MariaDB) /
  `max_execution_time` (MySQL); the driver's multi-statement flag is cleared on every connection;
  rows stream from an unbuffered cursor.
- DuckDB: opened `read_only`.
- Everywhere: a timer cancels the statement shortly after the time limit (a second line of
  defence), the transaction is always rolled back, rows are fetched in batches up to a row and byte
  budget, and a connection whose statement failed or returned no rows is discarded, so session
  state a statement may have changed (MySQL `SET`, temporary tables) never reaches the next query.
"""

from __future__ import annotations

import contextlib
import threading
import time

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import make_url

from wenshu.errors import DatasourceUnreachable
from wenshu.engines.result import (
    MAX_RESULT_BYTES, ExecResult, count_sql, db_error, fetch_rows, refused_error, timeout_error,
)  # fmt: skip

_TIMEOUT_WORDS = (
    "statement timeout", "maximum statement execution time", "max_statement_time", "interrupted", "canceling statement",
)  # fmt: skip
_READ_ONLY_WORDS = ("read-only", "read only", "readonly")
_READ_WORDS = {"SELECT", "WITH", "VALUES", "TABLE"}
CONNECT_TIMEOUT_S = 10
CONNECT_TIMEOUT_DRIVERS = {"psycopg2", "psycopg", "pymysql", "mysqldb"}
CANCEL_SLACK_S = 0.5  # the timer fires this long after the server-side limit should have
MAX_ENGINES = 16
COUNT_MIN_S = 0.2  # the least time the row count of a truncated result gets
MULTI_STATEMENTS = 1 << 16  # MySQL client capability flag CLIENT_MULTI_STATEMENTS

_engines: dict[str, sa.Engine] = {}
_engines_lock = threading.Lock()


def _no_multi_statements(dialect, conn_rec, cargs, cparams) -> None:
    cparams["client_flag"] = int(cparams.get("client_flag", 0)) & ~MULTI_STATEMENTS


def _create_engine(url: str) -> sa.Engine:
    u = make_url(url)
    kwargs: dict = {"pool_pre_ping": True}
    backend = u.get_backend_name()
    if backend == "duckdb":
        kwargs["connect_args"] = {"read_only": True}
    elif backend in ("postgresql", "mysql", "mariadb") and u.get_driver_name() in CONNECT_TIMEOUT_DRIVERS:
        kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    engine = sa.create_engine(u, **kwargs)
    if backend in ("mysql", "mariadb"):
        event.listen(engine, "do_connect", _no_multi_statements)
    return engine


def engine_for(url: str) -> sa.Engine:
    """One pooled engine per URL (at most MAX_ENGINES; the oldest is disposed)."""
    with _engines_lock:
        engine = _engines.get(url)
        if engine is None:
            if len(_engines) >= MAX_ENGINES:
                _engines.pop(next(iter(_engines))).dispose()
            engine = _engines[url] = _create_engine(url)
        return engine


def cached_engines() -> list[sa.Engine]:
    with _engines_lock:
        return list(_engines.values())


def _ms(timeout_s: float) -> int:
    return max(1, int(timeout_s * 1000))


def is_mysql(conn: sa.Connection) -> bool:
    return conn.dialect.name in ("mysql", "mariadb")


def prepare_session(conn: sa.Connection, timeout_s: float) -> None:
    """Session settings that must precede the transaction (MySQL/MariaDB read-only + time limit)."""
    if not is_mysql(conn):
        return
    conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
    if getattr(conn.dialect, "is_mariadb", False):
        conn.exec_driver_sql(f"SET SESSION max_statement_time = {max(timeout_s, 0.001):.3f}")
    else:
        conn.exec_driver_sql(f"SET SESSION max_execution_time = {_ms(timeout_s)}")
    conn.rollback()  # end the implicit transaction; the next one starts read-only


def prepare_transaction(conn: sa.Connection, timeout_s: float) -> None:
    """Transaction-level settings (PostgreSQL read-only + timeouts), in one round trip."""
    if conn.dialect.name == "postgresql":
        ms = _ms(timeout_s)
        conn.exec_driver_sql(
            f"SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {ms}; "
            f"SET LOCAL idle_in_transaction_session_timeout = {ms + 5000}; "
            "SET LOCAL cursor_tuple_fraction = 1"  # plan the cursor for all its rows, like a plain query
        )


@contextlib.contextmanager
def readonly_connection(url: str, timeout_s: float):
    """A connection inside a read-only transaction with the time limits set; always rolled back.
    Yields (connection, fired): `fired` is non-empty once the cancel timer has fired."""
    safe = make_url(url).render_as_string(hide_password=True)
    try:
        engine = engine_for(url)
        conn = engine.connect()
    except (sa.exc.SQLAlchemyError, ImportError, OSError) as err:
        raise DatasourceUnreachable(safe, str(getattr(err, "orig", err)).strip().splitlines()[0][:300]) from err
    fired: list = []
    ok = False
    try:
        try:
            prepare_session(conn, timeout_s)
            conn.begin()
            prepare_transaction(conn, timeout_s)
        except sa.exc.SQLAlchemyError as err:  # the session could not be made read-only: nothing runs
            raise db_error(f"the read-only session could not be set up: {getattr(err, 'orig', err)}") from err
        timer = _cancel_later(engine, conn, timeout_s, fired)
        try:
            yield conn, fired
        finally:
            timer.cancel()
        ok = True
    finally:
        _release(conn, discard=not ok or bool(fired))


def _release(conn: sa.Connection, *, discard: bool) -> None:
    if discard:
        with contextlib.suppress(Exception):
            conn.invalidate()  # closes the driver connection; the pool opens a fresh one next time
    with contextlib.suppress(Exception):
        conn.rollback()
    with contextlib.suppress(Exception):
        conn.close()


def _kill_mysql_query(engine: sa.Engine, raw) -> None:
    """MySQL drivers cannot cancel: `KILL QUERY` the statement from a second connection."""
    thread_id = raw.thread_id() if callable(getattr(raw, "thread_id", None)) else None
    if thread_id is None:
        return
    cargs, cparams = engine.dialect.create_connect_args(engine.url)
    other = engine.dialect.dbapi.connect(*cargs, **cparams)
    try:
        other.cursor().execute(f"KILL QUERY {int(thread_id)}")
    finally:
        other.close()


def _cancel_later(engine: sa.Engine, conn: sa.Connection, timeout_s: float, fired: list) -> threading.Timer:
    """A timer that cancels the running statement (a second line of defence after the server's)."""
    raw = getattr(conn.connection, "driver_connection", None)

    def fire() -> None:
        fired.append(True)
        with contextlib.suppress(Exception):  # best effort
            for method in ("interrupt", "cancel"):
                fn = getattr(raw, method, None)
                if callable(fn):
                    fn()
                    return
            if is_mysql(conn):
                _kill_mysql_query(engine, raw)

    timer = threading.Timer(timeout_s + CANCEL_SLACK_S, fire)
    timer.daemon = True
    timer.start()
    return timer


def is_timeout(err: Exception) -> bool:
    orig = getattr(err, "orig", err)
    text = str(orig).lower()
    code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
    errno = orig.args[0] if getattr(orig, "args", None) else None
    return code == "57014" or errno in (3024, 1969, 1317) or any(k in text for k in _TIMEOUT_WORDS)


def _first_word(sql: str) -> str:
    """The statement's first keyword, past comments and parentheses ('' when there is none)."""
    text = sql
    while True:
        text = text.lstrip().lstrip("(").lstrip()
        if text.startswith("--") or text.startswith("#"):
            text = text.split("\n", 1)[1] if "\n" in text else ""
        elif text.startswith("/*"):
            text = text.split("*/", 1)[1] if "*/" in text else ""
        else:
            break
    return text.split(None, 1)[0].upper().rstrip(";") if text else ""


def _refusal_detail(text: str, sql: str) -> str | None:
    """Why the engine refused a non-read statement, when the error says so; else None."""
    low = text.lower()
    if any(w in low for w in _READ_ONLY_WORDS):
        return text.splitlines()[0]
    if "multiple commands" in low:
        return "several statements were sent; only one may run"
    if "data-modifying" in low:
        return "a data-modifying statement inside WITH cannot run"
    if "select ... into" in low:
        return "SELECT ... INTO writes a table and cannot run"
    if "declare" in low and "syntax error" in low and _first_word(sql) not in _READ_WORDS:
        return f"only a single read statement may run, not {_first_word(sql) or 'this'}"
    return None


def translate_error(err: Exception, fired: list, timeout_s: float, sql: str = "") -> Exception:
    """The Wenshu error for a driver error: a timeout, a read-only refusal, or a database error."""
    if fired or is_timeout(err):
        return timeout_error(timeout_s)
    text = str(getattr(err, "orig", err)).strip()
    detail = _refusal_detail(text, sql)
    if detail:
        return refused_error(detail)
    return db_error(text.split("\nLINE ", 1)[0])  # PostgreSQL's context line quotes our DECLARE


def _stream_options(conn: sa.Connection) -> dict:
    # Server-side cursors where the dialect has them: batches instead of the whole result in memory,
    # and on PostgreSQL `DECLARE ... CURSOR FOR` accepts one read statement only.
    return {"no_parameters": True, "stream_results": bool(conn.dialect.supports_server_side_cursors)}


def _abandon_stream(result, conn: sa.Connection) -> None:
    """Drop an unbuffered MySQL result without reading it to its end (the protocol has no way to stop
    the server sending; closing the connection does), then drop the connection."""
    pending = getattr(getattr(result, "cursor", None), "_result", None)
    if hasattr(pending, "unbuffered_active"):
        pending.unbuffered_active = False
    conn.invalidate()


def _count(url: str, sql: str, timeout_s: float, fallback: int) -> int:
    try:
        with readonly_connection(url, timeout_s) as (conn, _):
            return int(conn.exec_driver_sql(count_sql(sql), execution_options=_stream_options(conn)).scalar())
    except Exception:  # noqa: BLE001 - counting failed or timed out: report what we know
        return fallback


def execute_sqlalchemy(
    url: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int = MAX_RESULT_BYTES
) -> ExecResult:
    """Run one statement read-only; at most `row_limit` rows and about `max_bytes` of values."""
    started = time.perf_counter()
    with readonly_connection(url, timeout_s) as (conn, fired):
        try:
            result = conn.exec_driver_sql(sql, execution_options=_stream_options(conn))
            if not result.returns_rows:
                raise refused_error("the statement returned no rows")
            columns = list(result.keys())
            rows, truncated = fetch_rows(result, row_limit, max_bytes)
            if truncated and is_mysql(conn):
                _abandon_stream(result, conn)
            with contextlib.suppress(Exception):
                result.close()
        except sa.exc.SQLAlchemyError as err:
            raise translate_error(err, fired, timeout_s, sql) from err
    ms = (time.perf_counter() - started) * 1000
    remaining = max(COUNT_MIN_S, timeout_s - (time.perf_counter() - started))  # the count shares the time limit
    row_count = _count(url, sql, remaining, len(rows)) if truncated else len(rows)
    return ExecResult(columns, rows, row_count, truncated, round(ms, 2))
