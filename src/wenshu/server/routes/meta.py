"""GET /api/meta: what the web UI needs to start."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter

from wenshu.server.deps import CurrentUser, StateDep, visible_datasources
from wenshu.server.schemas import Meta

router = APIRouter(tags=["meta"])


def wenshu_version() -> str:
    try:
        return version("wenshu")
    except PackageNotFoundError:
        return "0+unknown"


@router.get("/api/meta", operation_id="meta", response_model=Meta)
def meta(state: StateDep, user: CurrentUser) -> Meta:
    names = [r.name for r in visible_datasources(state.store, user)]
    default = state.settings.default_datasource
    return Meta(version=wenshu_version(), datasources=names, default_datasource=default if default in names else
                (names[0] if names else None), user=user.user_id, auth_required=state.auth_required())
