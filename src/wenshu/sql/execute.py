"""Run one validated query read-only, bounded in rows and time.

SQLite files are opened with the standard library in read-only URI mode, with `query_only`, an
authorizer that allows reads only, and a progress handler that enforces the time limit. Other
engines go through SQLAlchemy (`wenshu.sql.engines`). The validator is the first guard; this is
the second and must hold even when the validator is bypassed.
"""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.parse

from sqlalchemy.engine import make_url

from wenshu.errors import DatasourceUnreachable
from wenshu.sql.engines import execute_sqlalchemy
from wenshu.sql.result import ExecResult, count_sql, db_error, fetch_rows, page, refused_error, strip_sql, timeout_error

__all__ = ["ExecResult", "data_version", "execute_readonly", "page"]

PROGRESS_STEPS = 2000  # SQLite VM instructions between two deadline checks
_SQLITE_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
_SQLITE_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, _SQLITE_RECURSIVE}
_SQLITE_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


def _sqlite_path(url: str) -> str | None:
    """The file path of a SQLite URL, or None when the URL is not SQLite."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite":
        return None
    return u.database or ""


def data_version(url: str) -> str:
    """A token that changes when the data may have changed (for a result cache key).

    SQLite: the file's mtime_ns and size (plus its -wal file's); other engines: the current hour."""
    path = _sqlite_path(url)
    if path is None:
        return "hour-" + time.strftime("%Y%m%d%H", time.gmtime())
    try:
        st = os.stat(path)
    except OSError as err:
        raise DatasourceUnreachable(os.path.basename(path) or url, f"{err.strerror or err}") from err
    version = f"{st.st_mtime_ns}-{st.st_size}"
    try:
        wal = os.stat(path + "-wal")
        version += f"-{wal.st_mtime_ns}-{wal.st_size}"
    except OSError:
        pass
    return version


def execute_readonly(url: str, sql: str, *, row_limit: int = 1000, timeout_s: float = 20.0) -> ExecResult:
    """Run `sql` read-only and return at most `row_limit` JSON-safe rows."""
    if row_limit < 1:
        raise ValueError("row_limit must be at least 1")
    sql = strip_sql(sql)
    path = _sqlite_path(url)
    if path is not None:
        return _execute_sqlite(path, sql, row_limit=row_limit, timeout_s=timeout_s)
    return execute_sqlalchemy(url, sql, row_limit=row_limit, timeout_s=timeout_s)


# --- SQLite -------------------------------------------------------------------------------------


def _authorizer(action, arg1, arg2, dbname, source):
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _SQLITE_DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK if action in _SQLITE_ALLOWED else sqlite3.SQLITE_DENY


def _open_sqlite(path: str) -> sqlite3.Connection:
    name = os.path.basename(path) or path or "sqlite"
    if not path or path == ":memory:" or path.startswith("file:"):
        raise DatasourceUnreachable(name, "an in-memory or URI SQLite database cannot be opened read-only from a URL")
    if not os.path.isfile(path):
        raise DatasourceUnreachable(name, f"the SQLite file {path} does not exist")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # fails early on non-databases
    except sqlite3.Error as err:
        raise DatasourceUnreachable(name, f"cannot open {path} as a SQLite database ({err})") from err
    conn.set_authorizer(_authorizer)
    return conn


class _Deadline:
    def __init__(self, timeout_s: float):
        self.timeout_s = timeout_s
        self.reset()

    def reset(self) -> None:
        self.at = time.monotonic() + self.timeout_s
        self.hit = False

    def __call__(self) -> int:  # progress handler: non-zero aborts the statement
        if time.monotonic() > self.at:
            self.hit = True
            return 1
        return 0


def _sqlite_error(err: sqlite3.Error, deadline: _Deadline) -> Exception:
    if deadline.hit or "interrupted" in str(err).lower():
        return timeout_error(deadline.timeout_s)
    if "not authorized" in str(err).lower() or "readonly" in str(err).lower().replace(" ", ""):
        return refused_error(str(err))
    return db_error(str(err))


def _execute_sqlite(path: str, sql: str, *, row_limit: int, timeout_s: float) -> ExecResult:
    conn = _open_sqlite(path)
    deadline = _Deadline(timeout_s)
    try:
        conn.set_progress_handler(deadline, PROGRESS_STEPS)
        started = time.perf_counter()
        try:
            cursor = conn.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated = fetch_rows(cursor, row_limit)
            cursor.close()
        except sqlite3.Warning as err:  # e.g. "You can only execute one statement at a time."
            raise db_error(str(err)) from err
        except sqlite3.Error as err:
            raise _sqlite_error(err, deadline) from err
        ms = (time.perf_counter() - started) * 1000
        row_count = len(rows)
        if truncated:
            deadline.reset()
            try:
                row_count = int(conn.execute(count_sql(sql)).fetchone()[0])
            except sqlite3.Error:
                row_count = row_limit  # counting timed out or failed: report what we know
        return ExecResult(columns, rows, row_count, truncated, round(ms, 2))
    finally:
        conn.close()
