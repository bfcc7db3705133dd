"""A datasource's semantic model: read the one in force (GET) and replace it with a new version (PUT, admins).

The body of a PUT is the YAML text (`{"yaml": "..."}`); it is parsed and checked against the
datasource's synced catalog before anything is stored, so an invalid model answers 400 with
`semantic_model_invalid` naming each bad entry, and the version in force stays.
"""

from __future__ import annotations

from fastapi import APIRouter

from wenshu.errors import NotFound
from wenshu.server.deps import CurrentUser, StateDep, require_admin, require_datasource
from wenshu.server.schemas import SemanticBody, SemanticOut

router = APIRouter(prefix="/api/datasources", tags=["semantic"])


def _out(found) -> SemanticOut:
    from wenshu.semantic.model import parse_model

    model = parse_model(found.body)
    return SemanticOut(datasource=found.datasource, version=found.version, source=found.source, yaml=found.body,
                       measures=[m.id for m in [*model.measures, *model.ratios]],
                       dimensions=[d.id for d in model.dimensions])


@router.get("/{name}/semantic", operation_id="semantic_get", response_model=SemanticOut)
def get_semantic(name: str, state: StateDep, user: CurrentUser) -> SemanticOut:
    """The semantic model in force for this datasource (its YAML, version and the ids it defines)."""
    require_datasource(state.store, user, name)
    found = state.store.semantic.get(name)
    if found is None:
        raise NotFound(f"Datasource '{name}' has no semantic model yet.", f"数据源「{name}」还没有语义模型。")
    return _out(found)


@router.put("/{name}/semantic", operation_id="semantic_put", response_model=SemanticOut)
def put_semantic(name: str, body: SemanticBody, state: StateDep, user: CurrentUser) -> SemanticOut:
    """Store a new version after checking it against the datasource's catalog; the old one stays on error."""
    from wenshu.knowledge.sync import current_catalog
    from wenshu.semantic.library import import_model

    record = require_datasource(state.store, user, name)
    require_admin(user)
    version, _ = import_model(state.store, current_catalog(state.store, name, record.url), body.yaml)
    return _out(state.store.semantic.get(name, version))
