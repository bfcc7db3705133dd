"""The plan prompt's worked examples (setting plan_examples) are made of the semantic model's own entries:
each example's JSON is a valid plan under the model's schema, and a model without the entries they need
gets none (and the prompt is then the one without examples, byte for byte)."""

from __future__ import annotations

import json

from wenshu.agent.plan import fill_schema
from wenshu.agent.plan_prompt import plan_messages, worked_examples
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan


def test_examples_are_valid_plans_of_this_model():
    model = parse_model(bundled_text("demo"))
    text = worked_examples(model)
    plans = [json.loads(line.removeprefix("JSON: ")) for line in text.splitlines() if line.startswith("JSON: ")]
    questions = [line for line in text.splitlines() if line.startswith("Question: ")]
    assert len(plans) == len(questions) == 6
    props = fill_schema(model)["properties"]
    metrics, dims = set(props["measures"]["items"]["enum"]), set(props["dimensions"]["items"]["enum"])
    for plan in plans:
        QueryPlan.model_validate(plan)
        assert set(plan) <= set(props)  # only what the model is asked to fill
        assert set(plan["measures"]) <= metrics and set(plan.get("dimensions", [])) <= dims
        assert {f["dimension"] for f in plan.get("filters", [])} <= dims and plan.get("order_by", "gmv") in metrics
    first, second = model.measures[0], model.measures[1]
    assert any(first.zh in q for q in questions) and any(second.en in q for q in questions)
    system = plan_messages(model, "GMV by region", examples=True)[0]
    assert text in system.content and system.additional_kwargs == {"prefix_cache": "demo#plan#examples"}


def test_a_model_without_coded_dimensions_gets_no_examples():
    model = parse_model(bundled_text("demo"))
    plain = model.model_copy(update={"dimensions": [d.model_copy(update={"labels": {}, "labels_en": {}})
                                                    for d in model.dimensions]})
    assert worked_examples(plain) == ""
    with_flag, without = (plan_messages(plain, "GMV by region", examples=flag)[0] for flag in (True, False))
    assert with_flag.content == without.content and with_flag.additional_kwargs == {"prefix_cache": "demo#plan"}
