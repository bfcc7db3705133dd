"""The connection to the Redis that every Wenshu process shares (`WENSHU_REDIS_URL`).

    check_redis(url)                 # at start: the server's version, or RedisUnusable with the fix
    link = open_redis_link(url)      # None for an empty URL: the embedded defaults
    link.run(lambda r: r.get("k"), fallback=lambda: None)

The result cache, the rate limits and session memory reach Redis only through `RedisLink.run`. Redis going
away while Wenshu runs is not an error: `run` answers the caller's fallback (no shared cache, per-process
limits and memory), logs one warning when Redis goes down and one line when it is back, and while it is down
tries it again at most every `retry_s` seconds, so a request never waits on a dead Redis more than once per
interval. `available` says which state the link is in (`/healthz`, `/metrics`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from wenshu.errors import RedisUnusable

log = logging.getLogger("wenshu.redis")

# The rate limit's Lua script reads TIME and then writes: scripts replicate their effects by default only from
# Redis 5.0 (earlier ones refuse a write after TIME). Multi-field HSET needs 4.0; nothing else needs more (the
# client speaks RESP2: make_client).
MIN_VERSION = (5, 0)
DOWN = (redis.ConnectionError, redis.TimeoutError)  # BusyLoadingError (a restart loading its data) is one
T = TypeVar("T")


def make_client(url: str) -> redis.Redis:
    """A client for `url` with short timeouts (one immediate retry: a pooled connection may predate a
    restart), speaking RESP2; raises RedisUnusable("redis_bad_url") for a URL redis-py cannot read.

    RESP2 because redis-py 8 otherwise opens every connection with `HELLO 3`, a command Redis has only from
    6.0: a Redis 5, which MIN_VERSION accepts, would refuse every connection."""
    try:
        return redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=2.0, protocol=2,
                                    retry=Retry(NoBackoff(), 1), health_check_interval=30)
    except (ValueError, TypeError) as exc:
        raise RedisUnusable("redis_bad_url", str(exc)) from None


def redact(url: str) -> str:
    """The URL with its password (if any) replaced by ***, for messages and `wenshu doctor`."""
    scheme, sep, rest = url.partition("://")
    creds, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in creds:
        return url
    return f"{scheme}://{creds.split(':', 1)[0]}:***@{host}"


def check_redis(url: str) -> str:
    """The version of the Redis at `url`; RedisUnusable for a bad URL, no answer, or one older than 5.0."""
    client = make_client(url)
    try:
        version = str(client.info("server").get("redis_version", "0"))
    except redis.RedisError as exc:  # no answer, a timeout, a wrong password
        raise RedisUnusable("redis_unreachable", f"{redact(url)}: {exc}") from None
    finally:
        client.close()
    if too_old(version):
        raise RedisUnusable("redis_too_old", f"{version} at {redact(url)}")
    return version


def too_old(version: str) -> bool:
    """Whether a `redis_version` ("7.0.15") is older than MIN_VERSION."""
    parts = tuple(int(p) if p.isdigit() else 0 for p in (version.split(".") + ["0"])[:2])
    return parts < MIN_VERSION


class RedisLink:
    """One client, the up/down state and its warnings, for everything that uses Redis in this process."""

    def __init__(self, url: str, *, retry_s: float = 2.0):
        self.url = url
        self.client = make_client(url)
        self.retry_s = retry_s
        self._lock = threading.Lock()
        self._down = False
        self._next_try = 0.0

    @property
    def available(self) -> bool:
        """False from a failed command until one succeeds again."""
        return not self._down

    def run(self, op: Callable[[redis.Redis], T], fallback: Callable[[], T]) -> T:
        """`op(client)`, or `fallback()` while Redis is down (retried every `retry_s` seconds)."""
        if self._down and time.monotonic() < self._next_try:
            return fallback()
        try:
            result = op(self.client)
        except DOWN as exc:
            self._mark_down(exc)
            return fallback()
        if self._down:
            self._mark_up()
        return result

    def ping(self) -> bool:
        """Whether Redis answers now (a health check: tries even while the link waits to retry)."""
        with self._lock:
            self._next_try = 0.0
        return self.run(lambda r: bool(r.ping()), lambda: False)

    def close(self) -> None:
        self.client.close()

    def _mark_down(self, exc: Exception) -> None:
        with self._lock:
            first = not self._down
            self._down, self._next_try = True, time.monotonic() + self.retry_s
        if first:
            log.warning("Redis at %s is unreachable (%s): answers go on without the shared result cache, with "
                        "per-process rate limits and session memory, until Redis answers again", redact(self.url), exc)

    def _mark_up(self) -> None:
        with self._lock:
            was_down, self._down = self._down, False
        if was_down:
            log.warning("Redis at %s is back: the shared cache, limits and session memory are used again",
                        redact(self.url))


def open_redis_link(url: str | None, *, retry_s: float = 2.0) -> RedisLink | None:
    """The link for `url`, or None when it is empty (the embedded defaults)."""
    return RedisLink(url, retry_s=retry_s) if url else None
