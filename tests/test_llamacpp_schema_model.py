"""JSON-schema-constrained output with the real embedded model: a schema whose enum holds a double quote (an
MCP tool may declare one) is answered, where llama-cpp-python's own grammar for it fails to parse and the
process crashes."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from wenshu.providers.base import schema_format
from wenshu.providers.llamacpp import ChatLlamaCpp, grammar_safe

QUOTED = 'the "express" plan'


def test_an_enum_with_a_double_quote_is_loosened_to_its_type_and_every_other_constraint_kept():
    schema = {"anyOf": [
        {"type": "object", "properties": {"action": {"const": "pick"}, "plan": {"enum": [QUOTED, "standard"]},
                                          "size": {"enum": ["S", "M"]}}, "required": ["action", "plan", "size"]},
        {"type": "object", "properties": {"action": {"const": 'say "hi"'}, "enum": {"enum": [QUOTED]}}}]}
    safe = grammar_safe(schema)
    first, second = safe["anyOf"]
    assert first["properties"]["plan"] == {"type": "string"} and first["properties"]["size"] == {"enum": ["S", "M"]}
    assert first["properties"]["action"] == {"const": "pick"} and first["required"] == ["action", "plan", "size"]
    assert second["properties"] == {"action": {"type": "string"}, "enum": {"type": "string"}}
    assert schema["anyOf"][0]["properties"]["plan"]["enum"] == [QUOTED, "standard"]  # the caller's schema is kept


@pytest.mark.model
def test_the_embedded_model_answers_a_schema_whose_enum_holds_a_double_quote(real_model_path):
    model = ChatLlamaCpp(model_path=real_model_path, n_ctx=1024, max_tokens=32)
    schema = {"type": "object", "properties": {"plan": {"enum": [QUOTED, "standard"]}}, "required": ["plan"]}
    fmt = schema_format("Plan", schema)
    raw = model.invoke([HumanMessage(f"Which plan ships fastest: {QUOTED} or standard? Answer as JSON.")],
                       response_format=fmt).content
    assert isinstance(json.loads(raw)["plan"], str)
