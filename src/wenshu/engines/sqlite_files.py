"""SQLite files, opened with the standard library and held to reads only.

A file is opened in read-only URI mode, with `query_only`, an authorizer that allows reads only (no
PRAGMA, ATTACH or write, and no file or extension function), a progress handler that enforces the
time limit, a cap on the size of any string or blob, a bounded printf(), and rows fetched in batches
up to a row and byte budget (`fetch_rows`). The guard is the first line; this must hold even when
the guard is bypassed.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
import urllib.parse

from wenshu.engines.result import ExecResult, count_sql, db_error, fetch_rows, refused_error, timeout_error
from wenshu.errors import DatasourceUnreachable

COUNT_MIN_S = 0.2  # the least time the row count of a truncated result gets
PROGRESS_STEPS = 2000  # SQLite VM instructions between two deadline checks
SQLITE_MAX_VALUE_BYTES = 64 * 1024 * 1024  # no string or blob (zeroblob, randomblob, printf) may grow past this
_SQLITE_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
_SQLITE_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, _SQLITE_RECURSIVE}
_SQLITE_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


def file_version(path: str) -> str:
    """A token that changes when the file does: its mtime_ns and size (plus its -wal file's)."""
    try:
        st = os.stat(path)
    except OSError as err:
        raise DatasourceUnreachable(os.path.basename(path) or path, f"{err.strerror or err}") from err
    version = f"{st.st_mtime_ns}-{st.st_size}"
    try:
        wal = os.stat(path + "-wal")
        version += f"-{wal.st_mtime_ns}-{wal.st_size}"
    except OSError:
        pass
    return version


def _authorizer(action, arg1, arg2, dbname, source):
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _SQLITE_DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK if action in _SQLITE_ALLOWED else sqlite3.SQLITE_DENY


def open_sqlite(path: str) -> sqlite3.Connection:
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
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_VALUE_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    _bounded_printf(conn)
    return conn


_PRINTF_SPEC = re.compile(r"%[-+ #0,!]*(\*|\d+)?(?:\.(\*|\d+))?[a-zA-Z%]?")
PRINTF_MAX_WIDTH = 100_000  # SQLite pads `%.*c` one character at a time, out of the progress handler's reach


def _bounded_printf(conn: sqlite3.Connection) -> None:
    """Replace printf()/format() with a copy that refuses huge widths and precisions, then formats
    with the built-in one on a private in-memory connection."""
    inner = sqlite3.connect(":memory:", check_same_thread=False)
    inner.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_VALUE_BYTES)

    def printf(fmt, *args):
        if isinstance(fmt, str):
            star_args = iter(args)
            for width, precision in _PRINTF_SPEC.findall(fmt):
                for part in (width, precision):
                    value = next(star_args, 0) if part == "*" else (int(part) if part else 0)
                    if isinstance(value, (int, float)) and abs(value) > PRINTF_MAX_WIDTH:
                        raise ValueError(f"printf width or precision above {PRINTF_MAX_WIDTH}")
        marks = ", ".join(["?"] * (len(args) + 1))
        return inner.execute(f"SELECT printf({marks})", (fmt, *args)).fetchone()[0]

    for name in ("printf", "format"):
        conn.create_function(name, -1, printf, deterministic=True)


class Deadline:
    def __init__(self, timeout_s: float):
        self.timeout_s = timeout_s
        self.reset()

    def reset(self) -> None:
        self.at = time.monotonic() + self.timeout_s
        self.hit = False

    def at_least(self, seconds: float) -> None:
        """Leave at least `seconds` before the deadline (for a follow-up statement)."""
        self.at = max(self.at, time.monotonic() + seconds)
        self.hit = False

    def __call__(self) -> int:  # progress handler: non-zero aborts the statement
        if time.monotonic() > self.at:
            self.hit = True
            return 1
        return 0


def sqlite_error(err: sqlite3.Error, deadline: Deadline) -> Exception:
    if deadline.hit or "interrupted" in str(err).lower():
        return timeout_error(deadline.timeout_s)
    if "not authorized" in str(err).lower() or "readonly" in str(err).lower().replace(" ", ""):
        return refused_error(str(err))
    if "user-defined function raised exception" in str(err):  # only the bounded printf()/format()
        return db_error(f"a printf()/format() width or precision is above {PRINTF_MAX_WIDTH}")
    if "one statement at a time" in str(err):
        return refused_error("several statements were sent; only one may run")
    return db_error(str(err))


def execute_file(path: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int) -> ExecResult:
    conn = open_sqlite(path)
    deadline = Deadline(timeout_s)
    try:
        conn.set_progress_handler(deadline, PROGRESS_STEPS)
        started = time.perf_counter()
        try:
            cursor = conn.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated = fetch_rows(cursor, row_limit, max_bytes)
            cursor.close()
        except (sqlite3.Error, sqlite3.Warning) as err:  # Warning: "You can only execute one statement at a time."
            raise sqlite_error(err, deadline) from err
        ms = (time.perf_counter() - started) * 1000
        row_count = len(rows)
        if truncated:
            deadline.at_least(COUNT_MIN_S)  # the count shares the time limit, with a small minimum
            try:
                row_count = int(conn.execute(count_sql(sql)).fetchone()[0])
            except sqlite3.Error:
                row_count = row_limit  # counting timed out or failed: report what we know
        return ExecResult(columns, rows, row_count, truncated, round(ms, 2))
    finally:
        conn.close()
