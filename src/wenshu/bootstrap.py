"""Open the app: settings, the app store, and the built-in `demo` datasource (built on first use)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wenshu.settings import Settings

DEMO = "demo"


def demo_path(settings: Settings) -> Path:
    return settings.data_dir / "demo.sqlite"


def open_store(settings: Settings, redis=None):
    """The app store; its result cache in the Redis of `redis` (a storage.redis_link.RedisLink, e.g. the
    server's), else of `settings.redis_url` when set, else in the store itself."""
    from wenshu.storage.db import open_store as _open
    from wenshu.storage.redis_link import open_redis_link

    settings.ensure_home()
    link = redis if redis is not None else open_redis_link(settings.redis_url)
    return _open(settings.resolved_app_db_url, redis=link, cache_ttl_s=settings.cache_ttl_s,
                 connect_timeout_s=settings.database_timeout_s)


def ensure_demo(settings: Settings, store, progress: Callable[[str, int, int], None] | None = None) -> Path:
    """Build the demo database if missing or stale, register it as datasource `demo` and sync its catalog.

    The catalog sync runs once (the demo has a handful of tables: about 0.2 s); after that the agent
    re-syncs only when the demo file changes (`knowledge.sync.current_catalog`), so startup stays fast.
    """
    from wenshu.demo.generate import ensure_demo_db
    from wenshu.knowledge.sync import sync_datasource

    path = ensure_demo_db(settings.data_dir, progress=progress)
    url = f"sqlite:///{path}"
    known = {r.name: r for r in store.datasources.list()}
    if DEMO not in known:
        store.datasources.add(DEMO, url)
    if store.catalogs.status(DEMO) is None and (DEMO not in known or known[DEMO].url == url):
        sync_datasource(store, DEMO)
    from wenshu.knowledge.seed import seed_bundled

    seed_bundled(store, DEMO, "sqlite")  # the demo's examples and glossary, on first use
    if store.semantic.count(DEMO) == 0:  # and its reviewed semantic model
        from wenshu.knowledge.sync import current_catalog
        from wenshu.semantic.library import seed_bundled as seed_semantic

        seed_semantic(store, current_catalog(store, DEMO, url))
    return path
