"""GET /api/audit: your own audit log, newest first, with filters."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query

from wenshu.server.deps import CurrentUser, StateDep

router = APIRouter(tags=["audit"])


@router.get("/api/audit", operation_id="audit_list")
def audit(state: StateDep, user: CurrentUser, datasource: str | None = None, status: str | None = None,
          since: datetime | None = None, limit: int = Query(50, ge=1, le=1000),
          user_filter: str | None = Query(None, alias="user")) -> dict[str, Any]:
    """Entries of the caller only: a `user` filter naming anyone else finds nothing."""
    if user_filter is not None and user_filter != user.user_id:
        return {"items": []}
    rows = state.store.audit.query(limit=limit, user_id=user.user_id, datasource=datasource, status=status,
                                   since=since)
    return {"items": rows}
