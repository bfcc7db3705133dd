"""A SQLAlchemy dialect for chDB, ClickHouse embedded in this process: clickhouse-connect's own
ClickHouse dialect (`clickhousedb://`), connected through clickhouse-connect's chDB client instead of
HTTP. SQL compilation, types and the inspector are clickhouse-connect's.

URLs:

- ``chdb:///abs/path/to/dir`` - an existing chDB data directory (absolute, as clickhouse-connect writes
  it; ``chdb:////abs/path`` is read the same way);
- ``chdb://`` or ``chdb:///:memory:`` - an in-memory engine;
- ``?database=shop`` selects the ClickHouse database (``default`` otherwise); any other query parameter
  is a ClickHouse setting of each connection's session (``?max_threads=2``).

chDB hosts one engine per process, bound to one location: connections to it may come and go (each
with a session of its own: ``USE``, ``SET``), but another location cannot be opened. The first
connection keeps an anchor connection open for the life of the process, so the engine (and an
in-memory database) survives between connections and another location fails every time, with a
message saying so. Keep the datasets of a process in one directory, a ClickHouse database each.

`lock_read_only` turns a connection's session read-only for good; from then on the dialect lets one
read statement at a time through (see the function). Importing this module registers the dialect
in-process (`register`); a package declares it with the entry point
``[project.entry-points."sqlalchemy.dialects"] chdb = "wenshu.engines.chdb_dialect:ChdbDialect"``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading

from clickhouse_connect.cc_sqlalchemy.dialect import ClickHouseDialect
from clickhouse_connect.driver.exceptions import ProgrammingError
from sqlalchemy.dialects import registry
from sqlalchemy.engine import URL

MEMORY = ":memory:"
READ_WORDS = ("SELECT", "WITH", "EXPLAIN")
LOCKED = "_wenshu_read_only"  # set on a locked connection's clickhouse-connect client
_LEADING = re.compile(r"^(?:\s+|--[^\n]*(?:\n|$)|#[^\n]*(?:\n|$)|/\*.*?\*/|\()*", re.S)
_registered = False
_register_lock = threading.Lock()
_anchor: tuple[str, object] | None = None  # (location, chdb connection) kept open for the process
_anchor_lock = threading.Lock()


def chdb_location(url: URL) -> str:
    """The data directory a chdb:// URL names (absolute, symlinks resolved), or ':memory:'."""
    path = (url.database or "").strip()
    if path in ("", MEMORY, "memory"):
        return MEMORY
    return os.path.realpath("/" + path.lstrip("/"))  # chDB compares locations as written


def _anchored(location: str) -> None:
    """Open the process's anchor connection to `location` once; refuse any other location."""
    global _anchor
    with _anchor_lock:
        if _anchor is not None:
            if _anchor[0] != location:
                raise ProgrammingError(
                    f"chDB hosts one data directory per process: it runs on {_anchor[0]} and cannot open "
                    f"{location}; keep every dataset in one directory, one ClickHouse database each (?database=...)")
            return
        if location != MEMORY and not os.path.isdir(location):
            raise ProgrammingError(f"there is no chDB data directory at {location}")
        import chdb

        try:
            _anchor = (location, chdb.connect(location))
        except RuntimeError as err:
            raise ProgrammingError(f"chDB cannot open {location}: {err}") from err
        atexit.register(_release_anchor)


def _release_anchor() -> None:
    """Close the anchor at exit, so the engine shuts down before the interpreter does."""
    global _anchor
    with _anchor_lock:
        if _anchor is not None:
            with contextlib.suppress(Exception):
                _anchor[1].close()
            _anchor = None


def _literal(value: object) -> str:
    if isinstance(value, int | float) or re.fullmatch(r"[0-9]+(\.[0-9]+)?", str(value)):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def lock_read_only(dbapi_conn, settings: dict[str, object]) -> None:
    """SET `settings` on this connection's session, then ``readonly = 1``, which no later statement
    can undo (nor change any setting). chDB itself still runs ``;``-separated statements one after
    the other and writes ``INTO OUTFILE`` files, so from now on a statement with a ``;`` or the word
    OUTFILE anywhere (even inside a string: deliberately blunt), or that is not a SELECT, WITH or
    EXPLAIN, is refused before it reaches the engine. The connection cannot be unlocked: close it."""
    for key, value in settings.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ProgrammingError(f"not a setting name: {key!r}")
        dbapi_conn.command(f"SET {key} = {_literal(value)}")
    dbapi_conn.command("SET readonly = 1")
    setattr(dbapi_conn.client, LOCKED, True)


def why_not_one_read(statement: str) -> str | None:
    """Why a locked session refuses a statement; None when it is one read statement."""
    text = statement.strip().rstrip(";").rstrip()
    if ";" in text:
        return "several statements were sent; only one may run"
    if "outfile" in text.lower():
        return "INTO OUTFILE writes a file and cannot run"
    word = re.match(r"[A-Za-z]*", _LEADING.sub("", text, count=1)).group(0).upper()
    return None if word in READ_WORDS else f"only a single read statement may run, not {word or 'this'}"


def _check(cursor, statement: str) -> None:
    if getattr(getattr(cursor, "client", None), LOCKED, False):
        reason = why_not_one_read(statement)
        if reason:
            raise ProgrammingError(f"read-only session: {reason}")


class ChdbDialect(ClickHouseDialect):
    """clickhouse-connect's ClickHouse dialect over the in-process chDB engine."""

    driver = "chdb"
    supports_statement_cache = False

    @classmethod
    def import_dbapi(cls):
        from clickhouse_connect import dbapi

        return dbapi

    def create_connect_args(self, url: URL):
        options = {k: v for k, v in url.query.items() if k != "database"}
        location = chdb_location(url)
        return [], {"dsn": "chdb://" + location, "database": url.query.get("database") or None, **options}

    def connect(self, *cargs, **cparams):
        _anchored(str(cparams.get("dsn", "chdb://" + MEMORY))[len("chdb://"):])
        return super().connect(*cargs, **cparams)

    def do_execute(self, cursor, statement, parameters, context=None):
        _check(cursor, statement)
        super().do_execute(cursor, statement, parameters, context)

    def do_execute_no_params(self, cursor, statement, context=None):
        _check(cursor, statement)
        super().do_execute_no_params(cursor, statement, context)

    def do_executemany(self, cursor, statement, parameters, context=None):
        _check(cursor, statement)
        super().do_executemany(cursor, statement, parameters, context)


def register() -> None:
    """Make `chdb://` URLs known to SQLAlchemy in this process (idempotent)."""
    global _registered
    with _register_lock:
        if not _registered:
            registry.register("chdb", "wenshu.engines.chdb_dialect", "ChdbDialect")
            _registered = True


register()
