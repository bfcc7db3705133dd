"""Few-shot examples (question <-> SQL): a thin wrapper over `store.examples`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from wenshu.server.deps import CurrentUser, StateDep, require_admin, require_datasource, visible_datasources
from wenshu.server.schemas import Deleted

router = APIRouter(prefix="/api/examples", tags=["knowledge"])


class ExampleCreate(BaseModel):
    question: str
    sql: str
    datasource: str | None = None
    query_type: str | None = None


@router.get("", operation_id="examples_list")
def list_examples(state: StateDep, user: CurrentUser, datasource: str | None = None,
                  status: str | None = Query(None, pattern="^(active|pending|rejected)$")) -> dict[str, Any]:
    if datasource is not None:
        require_datasource(state.store, user, datasource)
    allowed = {r.name for r in visible_datasources(state.store, user)}
    records = state.store.examples.list(datasource, status=status)
    return {"items": [r.to_dict() for r in records if r.datasource in allowed]}


@router.post("", operation_id="examples_add", status_code=201)
def add_example(body: ExampleCreate, state: StateDep, user: CurrentUser) -> dict[str, Any]:
    """Add an active example after checking that its SQL parses; a known question is refused (400)."""
    from wenshu.guard import sqlglot_dialect
    from wenshu.knowledge.examples import LibraryExamples

    record = require_datasource(state.store, user, body.datasource or state.settings.default_datasource)
    require_admin(user)
    added = LibraryExamples(state.store.examples).add(
        record.name, body.question, body.sql, query_type=body.query_type,
        dialect=sqlglot_dialect(record.dialect) or None)
    return added.to_dict()


@router.delete("/{example_id}", operation_id="examples_remove", response_model=Deleted)
def remove_example(example_id: int, state: StateDep, user: CurrentUser) -> Deleted:
    record = state.store.examples.get(example_id)  # 404 example_not_found
    require_datasource(state.store, user, record.datasource)
    require_admin(user)
    state.store.examples.remove(example_id)
    return Deleted()
