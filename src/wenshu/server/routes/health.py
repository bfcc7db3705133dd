"""GET /healthz (liveness) and GET /metrics (Prometheus text)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from wenshu.server.deps import StateDep

router = APIRouter(tags=["health"])


@router.get("/healthz", operation_id="health")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/metrics", operation_id="metrics", response_class=PlainTextResponse)
def metrics(state: StateDep) -> PlainTextResponse:
    return PlainTextResponse(state.metrics.render(), media_type="text/plain; version=0.0.4")
