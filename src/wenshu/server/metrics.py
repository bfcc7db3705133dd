"""Prometheus text metrics, hand-written: requests, latency, answers, model calls and cache hits.

Latency is measured to the start of the response (for an event stream: until its headers are sent),
per route template, so ids in paths do not explode the label set.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(**kv: str) -> str:
    inner = ",".join(f'{k}="{str(v).replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
                     for k, v in kv.items())
    return "{" + inner + "}"


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str, int]] = Counter()
        self.latency: dict[str, list[float]] = {}  # route -> [bucket counts..., sum, count]
        self.answers: Counter[str] = Counter()
        self.model_calls = 0
        self.cache_hits = 0
        self.active: Callable[[], int] = lambda: 0
        self.redis_up: Callable[[], int] | None = None  # set when a shared Redis is configured
        self.queue_counts: Callable[[], dict | None] | None = None  # the task queue's, when there is one

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(method, route, status)] += 1
            row = self.latency.setdefault(route, [0.0] * (len(BUCKETS) + 2))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    row[i] += 1
            row[-2] += seconds
            row[-1] += 1

    def observe_answer(self, status: str, llm_calls: int = 0, cached: bool = False) -> None:
        with self._lock:
            self.answers[status] += 1
            self.model_calls += llm_calls
            self.cache_hits += int(cached)

    def render(self) -> str:
        with self._lock:
            out = ["# HELP wenshu_http_requests_total HTTP requests by method, route and status.",
                   "# TYPE wenshu_http_requests_total counter"]
            for (method, route, status), n in sorted(self.requests.items()):
                out.append(f"wenshu_http_requests_total{_labels(method=method, route=route, status=status)} {n}")
            out += ["# HELP wenshu_http_request_seconds Time to the start of the response.",
                    "# TYPE wenshu_http_request_seconds histogram"]
            for route, row in sorted(self.latency.items()):
                for bound, n in zip(BUCKETS, row, strict=False):
                    out.append(f"wenshu_http_request_seconds_bucket{_labels(route=route, le=bound)} {n:g}")
                out.append(f"wenshu_http_request_seconds_bucket{_labels(route=route, le='+Inf')} {row[-1]:g}")
                out.append(f"wenshu_http_request_seconds_sum{_labels(route=route)} {row[-2]:.6f}")
                out.append(f"wenshu_http_request_seconds_count{_labels(route=route)} {row[-1]:g}")
            out += ["# HELP wenshu_answers_total Answers finished, by status.", "# TYPE wenshu_answers_total counter"]
            out += [f"wenshu_answers_total{_labels(status=s)} {n}" for s, n in sorted(self.answers.items())]
            out += ["# HELP wenshu_model_calls_total Chat model calls.", "# TYPE wenshu_model_calls_total counter",
                    f"wenshu_model_calls_total {self.model_calls}",
                    "# HELP wenshu_cache_hits_total Answers served from the result cache.",
                    "# TYPE wenshu_cache_hits_total counter", f"wenshu_cache_hits_total {self.cache_hits}"]
        out += ["# HELP wenshu_running_answers Answers running or queued now.", "# TYPE wenshu_running_answers gauge",
                f"wenshu_running_answers {self.active()}"]
        if self.redis_up is not None:
            out += ["# HELP wenshu_redis_up Whether the shared Redis answered the last command (0: down, answers go "
                    "on without the shared cache).", "# TYPE wenshu_redis_up gauge",
                    f"wenshu_redis_up {self.redis_up()}"]
        counts = self.queue_counts() if self.queue_counts is not None else None
        if counts is not None:  # None: Redis is down (wenshu_redis_up says so)
            out += ["# HELP wenshu_queue_tasks Queued tasks by kind and state (finished and failed: those still "
                    "kept), in the shared task queue.", "# TYPE wenshu_queue_tasks gauge"]
            out += [f"wenshu_queue_tasks{_labels(kind=k, state=s)} {n}" for (k, s), n in sorted(counts.items())]
        return "\n".join(out) + "\n"


class MetricsMiddleware:
    """Pure ASGI (streams pass through untouched): counts each request when its response starts."""

    def __init__(self, app: ASGIApp, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                route = getattr(scope.get("route"), "path", None) or "<unmatched>"
                self.metrics.observe_request(scope["method"], route, message["status"], time.perf_counter() - t0)
            await send(message)

        await self.app(scope, receive, timed)
