"""Read-only execution on engines other than SQLite files, through SQLAlchemy.

The transaction is made read-only where the engine supports it (PostgreSQL `SET TRANSACTION READ
ONLY` + `SET LOCAL statement_timeout`; MySQL/MariaDB `SET SESSION TRANSACTION READ ONLY` +
`max_execution_time` / `max_statement_time`; DuckDB opened `read_only`), a timer cancels the
statement on drivers that can, and the transaction is always rolled back.
"""

from __future__ import annotations

import functools
import threading
import time

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from wenshu.errors import DatasourceUnreachable
from wenshu.sql.result import ExecResult, count_sql, db_error, fetch_rows, refused_error, timeout_error

_TIMEOUT_WORDS = (
    "statement timeout", "maximum statement execution time", "max_statement_time", "interrupted", "canceling statement",
)  # fmt: skip
CONNECT_TIMEOUT_S = 10
CONNECT_TIMEOUT_DRIVERS = {"psycopg2", "psycopg", "pymysql", "mysqldb"}


@functools.lru_cache(maxsize=16)
def _engine(url: str) -> sa.Engine:
    u = make_url(url)
    kwargs: dict = {"pool_pre_ping": True}
    backend = u.get_backend_name()
    if backend == "duckdb":
        kwargs["connect_args"] = {"read_only": True}
    elif backend in ("postgresql", "mysql", "mariadb") and u.get_driver_name() in CONNECT_TIMEOUT_DRIVERS:
        kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    return sa.create_engine(u, **kwargs)


def _prepare_session(conn: sa.Connection, timeout_s: float) -> None:
    """Session settings that must precede the transaction (MySQL/MariaDB read-only + time limit)."""
    if conn.dialect.name not in ("mysql", "mariadb"):
        return
    conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
    if getattr(conn.dialect, "is_mariadb", False):
        conn.exec_driver_sql(f"SET SESSION max_statement_time = {max(timeout_s, 0.001):.3f}")
    else:
        conn.exec_driver_sql(f"SET SESSION max_execution_time = {max(1, int(timeout_s * 1000))}")
    conn.rollback()  # end the implicit transaction; the next one starts read-only


def _prepare_transaction(conn: sa.Connection, timeout_s: float) -> None:
    """Transaction-level settings (PostgreSQL read-only + statement timeout)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
        conn.exec_driver_sql(f"SET LOCAL statement_timeout = {max(1, int(timeout_s * 1000))}")


def _interrupt_later(conn: sa.Connection, timeout_s: float, fired: list) -> threading.Timer:
    """A timer that cancels the running statement on drivers that can (a second line of defence)."""

    def fire() -> None:
        fired.append(True)
        raw = getattr(conn.connection, "driver_connection", None)
        for method in ("interrupt", "cancel"):
            fn = getattr(raw, method, None)
            if callable(fn):
                try:
                    fn()
                except Exception:  # noqa: BLE001 - best effort
                    pass
                return

    timer = threading.Timer(timeout_s + 0.5, fire)
    timer.daemon = True
    timer.start()
    return timer


def _is_timeout(err: Exception) -> bool:
    orig = getattr(err, "orig", err)
    text = str(orig).lower()
    code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
    errno = orig.args[0] if getattr(orig, "args", None) else None
    return (
        code == "57014"
        or errno in (3024, 1969)
        or any(k in text for k in _TIMEOUT_WORDS)
    )


def execute_sqlalchemy(url: str, sql: str, *, row_limit: int, timeout_s: float) -> ExecResult:
    safe = make_url(url).render_as_string(hide_password=True)
    try:
        engine = _engine(url)
        conn = engine.connect()
    except (sa.exc.SQLAlchemyError, ImportError, OSError) as err:
        raise DatasourceUnreachable(safe, str(getattr(err, "orig", err)).strip().splitlines()[0][:300]) from err
    fired: list = []
    options = {"no_parameters": True}
    try:
        _prepare_session(conn, timeout_s)
        conn.begin()
        _prepare_transaction(conn, timeout_s)
        timer = _interrupt_later(conn, timeout_s, fired)
        try:
            started = time.perf_counter()
            result = conn.exec_driver_sql(sql, execution_options=options)
            if not result.returns_rows:
                raise refused_error("the statement returned no rows")
            columns = list(result.keys())
            rows, truncated = fetch_rows(result, row_limit)
            result.close()
            ms = (time.perf_counter() - started) * 1000
            row_count = len(rows)
            if truncated:
                try:
                    row_count = int(conn.exec_driver_sql(count_sql(sql), execution_options=options).scalar())
                except sa.exc.SQLAlchemyError:
                    row_count = row_limit
        finally:
            timer.cancel()
        return ExecResult(columns, rows, row_count, truncated, round(ms, 2))
    except sa.exc.SQLAlchemyError as err:
        if fired or _is_timeout(err):
            raise timeout_error(timeout_s) from err
        text = str(getattr(err, "orig", err))
        if "read-only" in text.lower() or "read only" in text.lower():
            raise refused_error(text.strip().splitlines()[0]) from err
        raise db_error(text) from err
    finally:
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001 - engines without transactions; closing discards the work
            pass
        conn.close()
