"""Datasources: list the ones you may use; add (after a connection test), sync and remove (admins)."""

from __future__ import annotations

from fastapi import APIRouter

from wenshu.engines.registry import check_engine
from wenshu.errors import EmptyDatasource
from wenshu.server.deps import CurrentUser, StateDep, require_admin, require_datasource, visible_datasources
from wenshu.server.schemas import DatasourceCreate, DatasourceList, DatasourceOut, Deleted

router = APIRouter(prefix="/api/datasources", tags=["datasources"])


def _sync(store, name: str):
    from wenshu.knowledge.sync import sync_datasource

    return sync_datasource(store, name)


def _statuses(store) -> dict:
    catalogs = getattr(store, "catalogs", None)
    return catalogs.statuses() if catalogs is not None else {}


def _out(record, status) -> DatasourceOut:
    return DatasourceOut(name=record.name, dialect=record.dialect,
                         tables=status.table_count if status else None,
                         synced_at=status.synced_at.isoformat() if status else None)


@router.get("", operation_id="datasources_list", response_model=DatasourceList)
def list_datasources(state: StateDep, user: CurrentUser) -> DatasourceList:
    statuses = _statuses(state.store)
    return DatasourceList(items=[_out(r, statuses.get(r.name)) for r in visible_datasources(state.store, user)])


@router.post("", operation_id="datasources_add", response_model=DatasourceOut, status_code=201)
def add_datasource(body: DatasourceCreate, state: StateDep, user: CurrentUser) -> DatasourceOut:
    """Register a datasource; it is read once (the connection test) and kept only when that works."""
    require_admin(user)
    check_engine(body.url)  # an engine without an adapter or a driver is named before anything is stored
    record = state.store.datasources.add(body.name, body.url)
    try:
        _sync(state.store, body.name)
    except EmptyDatasource:
        pass  # reachable, just no tables yet
    except Exception:
        state.store.datasources.remove(body.name)
        raise
    return _out(record, _statuses(state.store).get(body.name))


@router.post("/{name}/sync", operation_id="datasources_sync", response_model=DatasourceOut)
def sync_datasource(name: str, state: StateDep, user: CurrentUser) -> DatasourceOut:
    record = require_datasource(state.store, user, name)
    require_admin(user)
    _sync(state.store, name)
    return _out(record, _statuses(state.store).get(name))


@router.delete("/{name}", operation_id="datasources_remove", response_model=Deleted)
def remove_datasource(name: str, state: StateDep, user: CurrentUser) -> Deleted:
    require_datasource(state.store, user, name)
    require_admin(user)
    state.store.datasources.remove(name)
    return Deleted()
