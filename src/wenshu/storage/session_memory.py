"""Session memory: what the data pipeline remembers of a conversation between turns (its earlier questions, SQL
and plans: the graph state's `turns` and `sql` parts), kept by a LangGraph checkpointer.

    memory = open_session_memory(settings.checkpoint_path, store, ttl_s=8 * 3600, timeout_s=5)

Which checkpointer, first match wins:

| the app store has | checkpointer | kept |
|---|---|---|
| a Redis link (WENSHU_REDIS_URL) | `RedisSessionMemory` (storage/session_redis.py) | each conversation's latest checkpoint, `ttl_s` after its last use |
| a PostgreSQL database | `PostgresSessionMemory` (storage/session_postgres.py), in that database | every checkpoint |
| a SQLite file | LangGraph's SqliteSaver in `checkpoint_path` (WENSHU_HOME/checkpoints.sqlite, WAL) | every checkpoint |

Redis wins when both are set: it is the store shared for speed and expiry, and it keeps working (per process)
while Redis is down. A PostgreSQL checkpointer's pool is closed with the store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from wenshu.storage.session_redis import RedisSessionMemory


def open_session_memory(checkpoint_path: Path, store=None, ttl_s: float = 8 * 3600, timeout_s: float = 5.0):
    """The data pipeline's checkpointer for `store` (see the table above)."""
    link = getattr(store, "redis", None)
    if link is not None:
        return RedisSessionMemory(link, ttl_s)
    engine = getattr(store, "engine", None)
    if engine is not None and engine.dialect.name == "postgresql":
        from wenshu.storage.session_postgres import open_postgres_memory

        memory = open_postgres_memory(engine.url, timeout_s)
        store.closing.append(memory.conn.close)
        return memory
    from langgraph.checkpoint.sqlite import SqliteSaver

    from wenshu.storage.db import set_wal

    conn = sqlite3.connect(checkpoint_path, check_same_thread=False)
    set_wal(conn.cursor())  # as the app store's file: a checkpoint's commit need not wait for the disk each time
    conn.execute("PRAGMA synchronous=NORMAL")
    return SqliteSaver(conn)
