"""Check `plan_translate` (off by default): the plan path reads an English question in Chinese, as the chat
model translates it, and answers in English; a translation that fails leaves the question as asked. With the
scripted fake model on the real demo database; the questions are written here."""

from __future__ import annotations

import json

import pytest

from wenshu.contracts import AgentRequest


@pytest.fixture
def agent(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    settings = Settings(semantic_path=True, disabled_checks=[])  # every check on, plan_translate included
    return Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


def plan_step(resp):
    return next(t for t in resp.trace if t.node == "plan")


def test_an_english_question_is_read_in_chinese_and_answered_in_english(agent, fake_model):
    fake_model.queue("上个月各大区的销售额占比")  # the translation: its words name the share and the split
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
    resp = agent.ask(AgentRequest(message="How was last month's money spread across the areas we sell in?"))
    step = plan_step(resp)
    assert step.status == "ok" and "(read as: 上个月各大区的销售额占比)" in step.detail, step.detail
    assert step.checks == ["plan_translate"]
    assert resp.columns == ["region", "GMV", "share %"] and abs(sum(r[2] for r in resp.rows) - 100) < 0.1
    assert "Translate" in fake_model.calls[0][0].content  # the translation came first, then the plan


def test_a_chinese_question_is_not_translated(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
    resp = agent.ask(AgentRequest(message="上个月各大区的销售额"))
    assert plan_step(resp).status == "ok" and "read as" not in plan_step(resp).detail
    assert len(fake_model.calls) == 1


def test_off_by_default(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    off = Agent(Settings(semantic_path=True), store,
                models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
    resp = off.ask(AgentRequest(message="GMV by region last month"))
    assert plan_step(resp).status == "ok" and "read as" not in plan_step(resp).detail and len(fake_model.calls) == 1
