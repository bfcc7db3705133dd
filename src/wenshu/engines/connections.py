"""Read-only execution (layer 4) through SQLAlchemy, for every engine an adapter serves that way.

The adapter (`wenshu.engines.adapter`) says how its engine is made read-only and bounded in time
(PostgreSQL: `SET TRANSACTION READ ONLY` and `SET LOCAL statement_timeout`, a server-side cursor
that takes one statement; MySQL/MariaDB: a read-only session, `max_statement_time`, no multi
statements; DuckDB: opened `read_only`; ...). Here, for every engine: a timer cancels the statement
shortly after the time limit (a second line of defence), the transaction is always rolled back, rows
are fetched in batches up to a row and byte budget, and a connection whose statement failed or
returned no rows is discarded, so session state a statement may have changed never reaches the next
query.
"""

from __future__ import annotations

import contextlib
import threading
import time

import sqlalchemy as sa
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
CANCEL_SLACK_S = 0.5  # the timer fires this long after the server-side limit should have
MAX_ENGINES = 16
COUNT_MIN_S = 0.2  # the least time the row count of a truncated result gets

_engines: dict[str, sa.Engine] = {}
_engines_lock = threading.Lock()


def _create_engine(adapter, url: str) -> sa.Engine:
    adapter.check_driver(url)
    u = make_url(url)
    engine = sa.create_engine(u, **({"pool_pre_ping": True} | adapter.engine_options(u)))
    adapter.on_engine(engine)
    return engine


def engine_for(adapter, url: str) -> sa.Engine:
    """One pooled engine per URL (at most MAX_ENGINES; the oldest is disposed)."""
    with _engines_lock:
        engine = _engines.get(url)
        if engine is None:
            if len(_engines) >= MAX_ENGINES:
                _engines.pop(next(iter(_engines))).dispose()
            engine = _engines[url] = _create_engine(adapter, url)
        return engine


def cached_engines() -> list[sa.Engine]:
    with _engines_lock:
        return list(_engines.values())


@contextlib.contextmanager
def readonly_connection(adapter, url: str, timeout_s: float):
    """A connection inside a read-only transaction with the time limits set; always rolled back.
    Yields (connection, fired): `fired` is non-empty once the cancel timer has fired."""
    safe = make_url(url).render_as_string(hide_password=True)
    try:
        engine = engine_for(adapter, url)
        conn = engine.connect()
    except (sa.exc.SQLAlchemyError, ImportError, OSError, RuntimeError) as err:
        raise DatasourceUnreachable(safe, str(getattr(err, "orig", err)).strip().splitlines()[0][:300]) from err
    fired: list = []
    ok = False
    try:
        try:
            adapter.prepare_session(conn, timeout_s)
            conn.begin()
            adapter.prepare_transaction(conn, timeout_s)
        except sa.exc.SQLAlchemyError as err:  # the session could not be made read-only: nothing runs
            raise db_error(f"the read-only session could not be set up: {getattr(err, 'orig', err)}") from err
        timer = _cancel_later(adapter, engine, conn, timeout_s, fired)
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


def _cancel_later(adapter, engine: sa.Engine, conn: sa.Connection, timeout_s: float, fired: list) -> threading.Timer:
    """A timer that cancels the running statement (a second line of defence after the server's)."""

    def fire() -> None:
        fired.append(True)
        with contextlib.suppress(Exception):  # best effort
            adapter.cancel(engine, conn)

    timer = threading.Timer(timeout_s + CANCEL_SLACK_S, fire)
    timer.daemon = True
    timer.start()
    return timer


def is_timeout(adapter, err: Exception) -> bool:
    orig = getattr(err, "orig", err)
    text = str(orig).lower()
    return adapter.is_timeout(orig) or any(k in text for k in _TIMEOUT_WORDS)


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


def translate_error(adapter, err: Exception, fired: list, timeout_s: float, sql: str = "") -> Exception:
    """The Wenshu error for a driver error: a timeout, a read-only refusal, or a database error."""
    if fired or is_timeout(adapter, err):
        return timeout_error(timeout_s)
    text = str(getattr(err, "orig", err)).strip()
    detail = _refusal_detail(text, sql)
    if detail:
        return refused_error(detail)
    return db_error(text.split("\nLINE ", 1)[0])  # PostgreSQL's context line quotes our DECLARE


def stream_options(adapter, conn: sa.Connection) -> dict:
    # Server-side cursors where the dialect has them: batches instead of the whole result in memory,
    # and on PostgreSQL `DECLARE ... CURSOR FOR` accepts one read statement only.
    return {"no_parameters": True, "stream_results": adapter.stream_results(conn)}


def _count(adapter, url: str, sql: str, timeout_s: float, fallback: int) -> int:
    try:
        with readonly_connection(adapter, url, timeout_s) as (conn, _):
            return int(conn.exec_driver_sql(count_sql(sql), execution_options=stream_options(adapter, conn)).scalar())
    except Exception:  # noqa: BLE001 - counting failed or timed out: report what we know
        return fallback


def execute_sqlalchemy(
    adapter, url: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int = MAX_RESULT_BYTES
) -> ExecResult:
    """Run one statement read-only; at most `row_limit` rows and about `max_bytes` of values."""
    started = time.perf_counter()
    with readonly_connection(adapter, url, timeout_s) as (conn, fired):
        try:
            result = conn.exec_driver_sql(sql, execution_options=stream_options(adapter, conn))
            if not result.returns_rows:
                raise refused_error("the statement returned no rows")
            columns = list(result.keys())
            rows, truncated = fetch_rows(result, row_limit, max_bytes)
            if truncated:
                adapter.after_truncation(result, conn)
            with contextlib.suppress(Exception):
                result.close()
        except sa.exc.SQLAlchemyError as err:
            raise translate_error(adapter, err, fired, timeout_s, sql) from err
    ms = (time.perf_counter() - started) * 1000
    remaining = max(COUNT_MIN_S, timeout_s - (time.perf_counter() - started))  # the count shares the time limit
    row_count = _count(adapter, url, sql, remaining, len(rows)) if truncated else len(rows)
    return ExecResult(columns, rows, row_count, truncated, round(ms, 2))
