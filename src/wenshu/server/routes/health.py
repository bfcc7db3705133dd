"""GET /healthz (liveness, and the shared Redis when one is configured) and GET /metrics (Prometheus text)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from wenshu.server.deps import LangDep, StateDep

router = APIRouter(tags=["health"])

REDIS_DOWN = {"en": "Redis is unreachable: answers go on without the shared result cache, with per-process rate "
                    "limits and session memory, until it is back.",
              "zh": "Redis 无法连接：回答照常进行，但不使用共享结果缓存，限流与会话记忆暂为各进程独立，直到 Redis 恢复。"}


@router.get("/healthz", operation_id="health")
def healthz(state: StateDep, lang: LangDep) -> dict:
    """`{"status": "ok"}`; with a shared Redis also `redis` ("ok" | "down") and, while it is down, `warnings`.
    The server stays live either way: a Redis outage degrades, it does not stop answers."""
    if state.redis is None:
        return {"status": "ok"}
    if state.redis.ping():
        return {"status": "ok", "redis": "ok"}
    return {"status": "ok", "redis": "down", "warnings": [{"code": "redis_unreachable", "message": REDIS_DOWN[lang]}]}


@router.get("/metrics", operation_id="metrics", response_class=PlainTextResponse)
def metrics(state: StateDep) -> PlainTextResponse:
    return PlainTextResponse(state.metrics.render(), media_type="text/plain; version=0.0.4")
