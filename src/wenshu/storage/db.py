"""Opening the app store: the engine, the migrations and the repositories.

    store = open_store(settings.resolved_app_db_url)
    store.datasources.add("shop", "postgresql+psycopg://...")
    store.close()

The default is a SQLite file in WENSHU_HOME; PostgreSQL is only a different URL.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool

from wenshu.storage.audit import AuditLog
from wenshu.storage.cache import ResultCache
from wenshu.storage.cache_redis import RedisResultCache, open_result_cache
from wenshu.storage.catalog_store import CatalogStore
from wenshu.storage.conversations import Conversations
from wenshu.storage.datasources import Datasources
from wenshu.storage.examples_store import Examples
from wenshu.storage.glossary_store import Glossary
from wenshu.storage.json_values import json_dumps
from wenshu.storage.semantic_store import SemanticModels
from wenshu.storage.migrations import migrate
from wenshu.storage.redis_link import RedisLink
from wenshu.storage.schema import metadata
from wenshu.storage.store_health import report_outages, store_url, unusable
from wenshu.storage.users_store import Users

__all__ = ["Store", "make_engine", "metadata", "open_store"]

SQLITE_BUSY_TIMEOUT_S = 30.0


def _is_sqlite_memory(url: sa.URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def _sqlite_dbapi():
    from wenshu.storage.vectors_sqlitevec import sqlite_dbapi

    return sqlite_dbapi()


def set_wal(cur) -> None:
    """Switch the file to WAL (persistent, so only its first opener does it). Changing the journal
    mode answers SQLITE_BUSY at once, without the busy handler, while another connection is in a
    transaction (e.g. a concurrent first open migrating), so retry until the busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            if cur.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except (sqlite3.OperationalError, _sqlite_dbapi().OperationalError) as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def make_engine(url: str, connect_timeout_s: float = 5.0) -> Engine:
    """An engine for the app store; SQLite gets WAL, foreign keys and a busy timeout, PostgreSQL (psycopg, also
    for `postgresql://`) connections checked before use and a time limit on connecting. StoreUnusable for a
    URL that is neither (storage/store_health.py)."""
    parsed = store_url(url)
    kwargs: dict[str, Any] = {"json_serializer": json_dumps}
    if parsed.get_backend_name() != "sqlite":
        kwargs["connect_args"] = {"connect_timeout": max(1, round(connect_timeout_s))}  # libpq: whole seconds
        return sa.create_engine(parsed, pool_pre_ping=True, **kwargs)

    kwargs["connect_args"] = {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S}
    if _is_sqlite_memory(parsed):
        kwargs["poolclass"] = StaticPool  # one shared in-memory database for every thread
    elif not parsed.query.get("uri"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    kwargs["module"] = _sqlite_dbapi()  # one that can load sqlite-vec when there is one (vectors_sqlitevec.py)
    engine = sa.create_engine(parsed, **kwargs)

    @sa.event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - exercised by every test
        cur = dbapi_conn.cursor()
        try:
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
            set_wal(cur)
            cur.execute("PRAGMA synchronous=NORMAL")
        finally:
            cur.close()

    return engine


@dataclass
class Store:
    """The app store: its engine and one repository per resource."""

    engine: Engine
    datasources: Datasources
    conversations: Conversations
    audit: AuditLog
    cache: ResultCache | RedisResultCache
    catalogs: CatalogStore
    users: Users
    examples: Examples
    glossary: Glossary
    semantic: SemanticModels
    redis: RedisLink | None = None  # the shared Redis the cache uses (storage/redis_link.py), if any
    closing: list[Callable[[], None]] = field(default_factory=list)  # closed with the store (a checkpointer's pool)

    @classmethod
    def from_engine(cls, engine: Engine, redis: RedisLink | None = None, cache_ttl_s: float = 86400) -> Store:
        return cls(
            engine=engine,
            datasources=Datasources(engine),
            conversations=Conversations(engine),
            audit=AuditLog(engine),
            cache=open_result_cache(engine, redis, cache_ttl_s),
            catalogs=CatalogStore(engine),
            users=Users(engine),
            examples=Examples(engine),
            glossary=Glossary(engine),
            semantic=SemanticModels(engine),
            redis=redis,
        )

    def close(self) -> None:
        while self.closing:
            self.closing.pop()()
        self.engine.dispose()
        if self.redis is not None:
            self.redis.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(url: str, *, redis: RedisLink | None = None, cache_ttl_s: float = 86400,
               connect_timeout_s: float = 5.0) -> Store:
    """Open (creating or upgrading as needed) the app store at `url` (`Settings.resolved_app_db_url`;
    `wenshu.bootstrap.open_store(settings)` passes it); with a Redis link the result cache lives there.
    A database it cannot reach or log in to is StoreUnusable, with the reason; later outages StoreUnavailable."""
    engine = make_engine(url, connect_timeout_s)
    try:
        migrate(engine)
    except Exception as exc:
        engine.dispose()
        reason = unusable(exc, engine.url)
        if reason is exc:
            raise
        raise reason from None
    report_outages(engine)
    return Store.from_engine(engine, redis, cache_ttl_s)
