"""The JSON schema a model fills a query plan under: the plan's shape with this datasource's ids as enums.

Constrained decoding (llama.cpp's `response_format`, an endpoint's structured output) then cannot
produce a measure or dimension the semantic model does not have; the window stays a pair of dates,
which the time-phrase resolver fills or checks.
"""

from __future__ import annotations

from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan


def _enum(ids: list[str]) -> dict:
    return {"type": "string", "enum": ids}


def plan_schema(model: SemanticModel) -> dict:
    """QueryPlan's JSON schema with `measures`, `order_by`, `dimensions` and filter dimensions as enums."""
    schema = QueryPlan.model_json_schema()
    metrics = [m.id for m in model.measures] + [r.id for r in model.ratios]
    dims = [d.id for d in model.dimensions]
    props = schema["properties"]
    props["measures"]["items"] = _enum(metrics)
    props["measures"]["minItems"], props["measures"]["maxItems"] = 1, 3
    schema["required"] = ["measures"]
    props["records"] = {"anyOf": [_enum([r.id for r in model.records]), {"type": "null"}], "default": None} \
        if model.records else {"type": "null", "default": None}
    props["dimensions"]["items"] = _enum(dims) if dims else {"type": "string"}
    props["dimensions"]["maxItems"] = 2
    props["order_by"] = {"anyOf": [_enum(metrics), {"type": "null"}], "default": None}
    schema["$defs"]["Filter"]["properties"]["dimension"] = _enum(dims) if dims else {"type": "string"}
    props.pop("presence", None)  # read from the question's words (semantic.presence), never the model's
    schema["$defs"].pop("Presence", None)
    props.pop("via", None)  # read from the question's words (semantic.routes), never the model's
    props.pop("against", None)  # read from the question's words (semantic.windows.named_earlier), never the model's
    props.pop("rank_of", None)  # read from the question's words (semantic.rank_of), never the model's
    props["filters"]["maxItems"] = 4  # a small model may repeat filters until its tokens run out
    return schema
