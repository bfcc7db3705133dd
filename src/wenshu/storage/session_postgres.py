"""Session memory in a PostgreSQL app store: LangGraph's Postgres checkpointer (`langgraph-checkpoint-postgres`)
in the app store's own database, so every process on that store, on any machine, answers a follow-up with the
conversation's memory, and it survives restarts.

    memory = open_postgres_memory(store.engine.url, timeout_s=5)   # storage/session_memory.py opens it
    ...
    memory.conn.close()                                             # its connection pool

Its tables (`checkpoints`, `checkpoint_blobs`, `checkpoint_writes`, `checkpoint_migrations`) are LangGraph's,
created and upgraded by its own `setup()` when the memory opens, under an advisory lock so two processes
starting at once do not both run it; they are not in the app store's Alembic schema. Every checkpoint is kept,
as in the embedded SQLite file. Connections come from a small psycopg pool that checks each one before use
and waits at most `timeout_s` for one: while the database is down, a turn fails with `store_unavailable`
instead of hanging, and once it is back the pool reconnects by itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import sqlalchemy as sa
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from wenshu.storage.errors import StoreUnavailable

POOL_SIZE = 4  # the saver serialises its calls in a process (one lock), so a few connections are plenty
_SETUP_LOCK_ID = 0x77656E736863  # PostgreSQL advisory lock for setup() ("wenshc"; migrations use "wenshu")


class PostgresSessionMemory(PostgresSaver):
    """LangGraph's PostgresSaver whose lost connections are StoreUnavailable (the app store's outage error)."""

    @contextmanager
    def _cursor(self, *, pipeline: bool = False) -> Iterator[psycopg.Cursor]:
        try:
            with super()._cursor(pipeline=pipeline) as cur:
                yield cur
        except psycopg.OperationalError as exc:  # no connection in time (PoolTimeout), or one lost mid-call
            raise StoreUnavailable() from exc


def conninfo(url: sa.URL) -> str:
    """libpq's form of an app store URL (`postgresql+psycopg://...` -> `postgresql://...`)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def open_postgres_memory(url: sa.URL, timeout_s: float = 5.0) -> PostgresSessionMemory:
    """The checkpointer on the database at `url`, its tables set up; close it with `memory.conn.close()`."""
    info = conninfo(url)
    options = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
               "connect_timeout": max(1, round(timeout_s))}
    try:
        with psycopg.connect(info, **options) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK_ID,))
            try:
                PostgresSaver(conn).setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_ID,))
    except psycopg.OperationalError as exc:
        raise StoreUnavailable() from exc
    pool = ConnectionPool(info, min_size=1, max_size=POOL_SIZE, timeout=timeout_s, reconnect_timeout=timeout_s, kwargs=options,
                          check=ConnectionPool.check_connection, name="wenshu-session-memory", open=True)
    return PostgresSessionMemory(pool)
