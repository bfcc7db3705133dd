"""Shorthand people type is spelled out before a question is read (`knowledge.shorthand`): the same plan as the
question written out, through the graph with the scripted fake model on the real demo database. The questions
are written here."""

from __future__ import annotations

import json

import pytest

from wenshu.contracts import AgentRequest
from wenshu.knowledge.shorthand import expand


@pytest.mark.parametrize(("typed", "spelled"), [
    ("refunds by reason last wk", "refunds by reason last week"),
    ("orders over the past 3 wks w/ % chg", "orders over the past 3 weeks with % change"),
    ("avg basket for Q2 last yr pls", "average basket for Q2 last year please"),
    ("conv rate by channel, last 2 mos", "conversion rate by channel, last 2 months"),
    ("orders above 2.5k yday", "orders above 2500 yesterday"),
    ("monthly refund $ this yr", "monthly refund amount this year"),
    ("上Q各渠道的客单价", "上季度各渠道的客单价"), ("昨儿个退了多少钱", "昨天退了多少钱"),
])  # fmt: skip
def test_shorthand_is_spelled_out(typed, spelled):
    assert expand(typed) == spelled


@pytest.mark.parametrize("kept", ["Mo Salah's orders", "Q3 GMV by region", "orders over ¥5,000", "本月各品类的销量"])
def test_text_without_shorthand_is_unchanged(kept):
    assert expand(kept) == kept


def test_a_question_typed_in_shorthand_gets_the_plan_of_the_one_written_out(plan_agent, fake_model):
    answers = []
    for message in ("gmv by region last wk", "gmv by region last week"):
        fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
        resp = plan_agent.ask(AgentRequest(message=message))
        assert resp.error is None, resp.error
        answers.append((resp.sql, resp.rows))
    assert answers[0] == answers[1] and answers[0][1]


def test_a_question_without_shorthand_keeps_even_its_spacing():
    assert expand("Return the number of  airports.") == "Return the number of  airports."
