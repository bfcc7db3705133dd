"""The result cache in Redis, shared by every process: the twin of `ResultCache` (storage/cache.py).

Same keys (`make_key`: datasource + normalized SQL + data version, so new data simply misses), same
interface and behaviour (hits counted, `max_age_s`, `forget`, `evict_older_than`, `clear`). Each entry is a hash
`cache:{key}` (the result as JSON, its creation time, its hits) that Redis expires `ttl_s` after it was
stored; the set `cache-ds:{datasource}` lists a datasource's keys for `clear`. While Redis is down every
read misses and every write is skipped: answers go on, without the shared cache (storage/redis_link.py).

    cache = open_result_cache(engine, link, ttl_s=86400)   # the embedded table when link is None
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine

from wenshu.storage.cache import CachedResult, CacheWrites, ResultCache
from wenshu.storage.json_values import json_dumps
from wenshu.storage.redis_link import RedisLink

PREFIX, DS_PREFIX = "cache:", "cache-ds:"

# KEYS[1] the entry; ARGV[1] the oldest creation time accepted ('' for any). A hit is counted only when
# it is returned, as in the table (`UPDATE ... WHERE key = ? AND created_at >= ?`).
_GET = """
local created = redis.call('HGET', KEYS[1], 'created')
if not created then return false end
if ARGV[1] ~= '' and tonumber(created) < tonumber(ARGV[1]) then return false end
local hits = redis.call('HINCRBY', KEYS[1], 'hits', 1)
return {redis.call('HGET', KEYS[1], 'entry'), created, hits}
"""


class RedisResultCache(CacheWrites):
    def __init__(self, link: RedisLink, ttl_s: float):
        self.link = link
        self.ttl_ms = max(1, int(ttl_s * 1000))
        self._get = link.client.register_script(_GET)

    def get(self, key: str, max_age_s: float | None = None) -> CachedResult | None:
        """The cached result (counting the hit), or None; entries older than max_age_s miss."""
        oldest = "" if max_age_s is None else repr(time.time() - max_age_s)
        found = self.link.run(lambda r: self._get(keys=[PREFIX + key], args=[oldest]), lambda: None)
        if not found:
            return None
        entry, created, hits = found
        created_at = datetime.fromtimestamp(float(created), UTC)
        return CachedResult(key=key, created_at=created_at, hits=int(hits), **json.loads(entry))

    def _store(self, key: str, entry: dict[str, Any], ttl_s: float | None = None) -> None:
        """`put`'s storing (storage/cache.py): skipped while Redis is down."""
        blob = json_dumps(entry)
        ttl_ms = self.ttl_ms if ttl_s is None else max(1, int(ttl_s * 1000))

        def store(r) -> None:
            pipe = r.pipeline(transaction=True)
            pipe.delete(PREFIX + key)
            pipe.hset(PREFIX + key, mapping={"entry": blob, "created": repr(time.time()), "hits": 0})
            pipe.pexpire(PREFIX + key, ttl_ms)
            pipe.sadd(DS_PREFIX + entry["datasource"], key)
            pipe.pexpire(DS_PREFIX + entry["datasource"], max(ttl_ms, self.ttl_ms))  # as long as its newest entry
            pipe.execute()

        self.link.run(store, lambda: None)

    def forget(self, key: str) -> bool:
        """Delete one entry (its datasource's set keeps the name until it expires); whether there was one
        (False while Redis is down)."""
        return self.link.run(lambda r: bool(r.delete(PREFIX + key)), lambda: False)

    def evict_older_than(self, seconds: float) -> int:
        """Delete entries created more than `seconds` ago; returns how many (0 while Redis is down)."""
        cutoff = time.time() - seconds

        def evict(r) -> int:
            keys = list(r.scan_iter(match=PREFIX + "*", count=500))
            if not keys:
                return 0
            created = r.pipeline(transaction=False)
            for k in keys:
                created.hget(k, "created")
            old = [k for k, c in zip(keys, created.execute(), strict=True) if c is not None and float(c) < cutoff]
            return r.delete(*old) if old else 0

        return self.link.run(evict, lambda: 0)

    def clear(self, datasource: str | None = None) -> int:
        """Delete every entry (of one datasource); returns how many (0 while Redis is down)."""

        def clear(r) -> int:
            if datasource is None:
                keys = list(r.scan_iter(match=PREFIX + "*", count=500))
                sets = list(r.scan_iter(match=DS_PREFIX + "*", count=500))
            else:
                keys = [PREFIX + k.decode() for k in r.smembers(DS_PREFIX + datasource)]
                sets = [DS_PREFIX + datasource]
            gone = r.delete(*keys) if keys else 0
            if sets:
                r.delete(*sets)
            return gone

        return self.link.run(clear, lambda: 0)


def open_result_cache(engine: Engine, link: RedisLink | None = None, ttl_s: float = 86400):
    """The result cache: in Redis, shared by every process, when there is a link; else the app store's table."""
    return RedisResultCache(link, ttl_s) if link is not None else ResultCache(engine)
