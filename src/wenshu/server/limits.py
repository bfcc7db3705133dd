"""Request limits: a body size cap (413) and a per-token rate limit (429 with Retry-After)."""

from __future__ import annotations

import math
import threading
import time
from typing import Protocol

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wenshu.errors import PayloadTooLarge, RateLimited


DRAIN_MAX = 8 << 20  # bytes of a refused body read and dropped before the 413 is sent


class BodySizeLimit:
    """Pure ASGI middleware: refuse bodies over `max_bytes`, declared or streamed (chunked); `overrides`
    gives paths their own limit (document uploads)."""

    def __init__(self, app: ASGIApp, max_bytes: int, overrides: dict[str, int] | None = None):
        self.app = app
        self.max_bytes = max_bytes
        self.overrides = overrides or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.overrides.get(scope.get("path", ""), self.max_bytes)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._reject(scope, receive, send, limit)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise PayloadTooLarge(limit)
            return message

        await self.app(scope, limited, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        from wenshu.server.deps import request_lang
        from wenshu.server.errors import error_response

        drained = 0  # read what the client is still sending (up to DRAIN_MAX), so closing does not reset
        while drained <= DRAIN_MAX:  # the connection under the 413 before the client has read it
            message = await receive()
            drained += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        response = error_response(PayloadTooLarge(limit), request_lang(Request(scope)), 413)
        response.headers["Connection"] = "close"  # the unread body must not be taken for a request
        await response(scope, receive, send)


class Limiter(Protocol):
    """What the routes call: `RateLimiter` (this process) or `RedisRateLimiter` (shared, server/limits_redis.py)."""

    in_process: bool  # True: `check` does no I/O (the buckets are in this process)

    def check(self, key: str) -> None: ...


class RateLimiter:
    """Token buckets per key: `per_minute` requests a minute, bursts up to `per_minute`; 0 is off."""

    MAX_KEYS = 10_000
    in_process = True

    def __init__(self, per_minute: int):
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """Take one request from the key's bucket; raises RateLimited when it is empty."""
        if self.capacity <= 0:
            return
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                raise RateLimited(max(1, math.ceil((1.0 - tokens) / self.rate)))
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > self.MAX_KEYS:
                self._forget_idle(now)

    def _forget_idle(self, now: float) -> None:
        """Drop buckets that have refilled completely: they hold no state worth keeping."""
        full_after = self.capacity / self.rate
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full_after}
