"""The business glossary (terms and topics per datasource): a thin wrapper over `store.glossary`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from wenshu.server.deps import CurrentUser, StateDep, require_admin, require_datasource, visible_datasources
from wenshu.server.schemas import Deleted

router = APIRouter(prefix="/api/glossary", tags=["knowledge"])


class TermCreate(BaseModel):
    term: str
    definition: str
    datasource: str | None = None
    kind: str = "term"
    sql: str | None = None
    synonyms: list[str] = Field(default_factory=list)
    tables: list[str] = Field(default_factory=list)


@router.get("", operation_id="glossary_list")
def list_terms(state: StateDep, user: CurrentUser, datasource: str | None = None) -> dict[str, Any]:
    if datasource is not None:
        require_datasource(state.store, user, datasource)
    allowed = {r.name for r in visible_datasources(state.store, user)}
    return {"items": [r.to_dict() for r in state.store.glossary.list(datasource) if r.datasource in allowed]}


@router.post("", operation_id="glossary_add", status_code=201)
def add_term(body: TermCreate, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """Add a term; one the datasource already defines is refused (400 `duplicate`)."""
    record = require_datasource(state.store, user, body.datasource or state.settings.default_datasource)
    require_admin(user)
    added = state.store.glossary.add(record.name, body.term, body.definition, kind=body.kind, sql=body.sql,
                                     synonyms=body.synonyms, tables=body.tables)
    return added.to_dict()


@router.delete("/{term}", operation_id="glossary_remove", response_model=Deleted)
def remove_term(term: str, state: StateDep, user: CurrentUser, datasource: str | None = None) -> Deleted:
    record = require_datasource(state.store, user, datasource or state.settings.default_datasource)
    require_admin(user)
    state.store.glossary.remove(record.name, term)  # 404 glossary_term_not_found
    return Deleted()
