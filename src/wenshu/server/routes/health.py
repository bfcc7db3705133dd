"""GET /healthz (liveness, and the shared services when configured) and GET /metrics (Prometheus text)."""

from __future__ import annotations

import sqlalchemy as sa
from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from wenshu.server.deps import LangDep, StateDep
from wenshu.storage.errors import RedisDown, StoreUnavailable

router = APIRouter(tags=["health"])


def _store_answers(engine) -> bool:
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        return True
    except Exception:  # noqa: BLE001 - any failure to reach it is "down"; the request path says why
        return False


@router.get("/healthz", operation_id="health")
def healthz(state: StateDep, lang: LangDep) -> dict:
    """`{"status": "ok"}`; with a shared Redis also `redis` ("ok" | "down"), with a PostgreSQL app store also
    `store` ("ok" | "down"), and `warnings` (code and message) for each that is down. The server stays live
    either way: a Redis outage degrades answers, a database outage fails requests that write until it is back."""
    health, warnings = {"status": "ok"}, []
    if state.redis is not None:
        health["redis"] = "ok" if state.redis.ping() else "down"
        if health["redis"] == "down":
            warnings.append(RedisDown().to_dict(lang))
    engine = getattr(state.store, "engine", None)
    if engine is not None and engine.dialect.name != "sqlite":
        health["store"] = "ok" if _store_answers(engine) else "down"
        if health["store"] == "down":
            warnings.append(StoreUnavailable().to_dict(lang))
    if warnings:
        health["warnings"] = warnings
    return health


@router.get("/metrics", operation_id="metrics", response_class=PlainTextResponse)
def metrics(state: StateDep) -> PlainTextResponse:
    return PlainTextResponse(state.metrics.render(), media_type="text/plain; version=0.0.4")
