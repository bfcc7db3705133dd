"""The per-token rate limit in Redis, shared by every server process: the twin of `RateLimiter`.

The same token bucket (`per_minute` requests a minute, bursts up to `per_minute`) and the same 429
(`RateLimited` with Retry-After), kept in the hash `rate:{key}` and updated by one Lua script, so two
processes taking from one bucket at once never both get its last token. The clock is Redis's own (`TIME`),
the same for every process. While Redis is down each process limits on its own (the embedded `RateLimiter`
it falls back to), and the shared buckets are used again once Redis is back (storage/redis_link.py).

    limiter = open_rate_limiter(per_minute, link)   # the in-process RateLimiter when link is None
"""

from __future__ import annotations

import math

from wenshu.errors import RateLimited
from wenshu.server.limits import RateLimiter
from wenshu.storage.redis_link import RedisLink

PREFIX = "rate:"

# KEYS[1] the bucket; ARGV[1] capacity, ARGV[2] tokens per ms. Returns the ms to wait ('0': allowed).
# The bucket expires once it would be full again: a full bucket and no bucket are the same.
_TAKE = """
local cap, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens, last = tonumber(b[1]) or cap, tonumber(b[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - last) * rate)
local wait = 0
if tokens < 1 then wait = (1 - tokens) / rate else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((cap - tokens) / rate) + 1000)
return tostring(wait)
"""


class RedisRateLimiter:
    """Token buckets per key in Redis; 0 requests a minute is off."""

    in_process = False  # `check` asks Redis

    def __init__(self, link: RedisLink, per_minute: int, fallback: RateLimiter | None = None):
        self.link = link
        self.capacity = float(per_minute)
        self.fallback = fallback or RateLimiter(per_minute)
        self._take = link.client.register_script(_TAKE)

    def check(self, key: str) -> None:
        """Take one request from the key's shared bucket; raises RateLimited when it is empty."""
        if self.capacity <= 0:
            return
        wait_ms = self.link.run(lambda r: float(self._take(keys=[PREFIX + key], args=[self.capacity,
                                                                                     self.capacity / 60_000])),
                                lambda: None)
        if wait_ms is None:  # Redis is down: this process's own buckets
            self.fallback.check(key)
        elif wait_ms > 0:
            raise RateLimited(max(1, math.ceil(wait_ms / 1000)))


def open_rate_limiter(per_minute: int, link: RedisLink | None = None) -> RateLimiter | RedisRateLimiter:
    """The rate limiter: shared in Redis when there is a link, else this process's own."""
    return RedisRateLimiter(link, per_minute) if link is not None else RateLimiter(per_minute)
