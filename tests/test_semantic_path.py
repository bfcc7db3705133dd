"""The plan path in the graph, with the scripted fake model on the real demo database: a grounded plan
answers with compiled SQL; an ungrounded or uncompilable one says why and free SQL answers."""

from __future__ import annotations

import json

import pytest

from wenshu.contracts import AgentRequest

FREE_SQL = "SELECT COUNT(*) AS n FROM orders WHERE status = 1"


@pytest.fixture
def agent(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    settings = Settings(semantic_path=True)
    return Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


def step(resp, node: str):
    return next(t for t in resp.trace if t.node == node)


def test_a_grounded_plan_answers_with_compiled_sql(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"], "share": True}))
    resp = agent.ask(AgentRequest(message="上个月销售额按大区拆开，以及各自的占比"))
    assert resp.error is None, resp.error
    plan = step(resp, "plan")
    assert plan.status == "ok" and plan.detail.startswith("plan: gmv by region")
    assert "generate" not in [t.node for t in resp.trace]  # one model call: the plan
    assert len(fake_model.calls) == 1 and resp.sql.startswith("WITH m_gmv")
    assert resp.columns == ["大区", "销售额", "占比%"] and len(resp.rows) == 7
    assert abs(sum(r[2] for r in resp.rows) - 100) < 0.1
    system = fake_model.calls[0][0]
    assert "gmv: 销售额 / GMV" in system.content and system.additional_kwargs == {"prefix_cache": "demo#plan"}
    schema = fake_model.call_kwargs[0]["response_format"]["json_schema"]["schema"]
    assert "aov" in schema["properties"]["measures"]["items"]["enum"] and "window" not in schema["properties"]
    assert "date('now'" not in resp.sql and "order_date" in resp.sql  # the resolver's window, as dates


def test_a_plan_whose_measure_the_question_does_not_name_falls_back_to_free_sql(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"]}), FREE_SQL)
    resp = agent.ask(AgentRequest(message="一共有多少笔已支付的订单？"))
    plan = step(resp, "plan")
    assert plan.status == "skipped" and "names none of the semantic model's measures" in plan.detail
    assert step(resp, "generate").status == "ok" and resp.sql.startswith("SELECT COUNT(*)")


def test_a_plan_that_would_fan_out_is_not_compiled_and_free_sql_answers(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["category"]}))
    fake_model.default = ("SELECT cat.category_name AS 品类, ROUND(SUM(oi.quantity * oi.unit_price), 2) AS 销售额 "
                          "FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON "
                          "p.product_id = oi.product_id JOIN categories cat ON cat.category_id = p.category_id "
                          "WHERE o.status = 1 GROUP BY cat.category_name")
    resp = agent.ask(AgentRequest(message="销售额按品类分别是多少"))
    plan = step(resp, "plan")
    assert plan.status == "skipped" and "repeat the measure's rows" in plan.detail
    assert "generate" in [t.node for t in resp.trace] and "category_name" in resp.sql


def test_what_the_question_does_not_name_is_dropped_from_the_plan(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv", "uv"], "dimensions": ["city"],
                                 "filters": [{"dimension": "region", "values": ["华南"]}]}))
    resp = agent.ask(AgentRequest(message="本月的销售额是多少"))
    plan = step(resp, "plan")
    assert plan.status == "ok" and "dropped" in plan.detail and "dimension city" in plan.detail
    assert resp.columns == ["销售额"] and len(resp.rows) == 1  # one total: no city split, no region filter
