"""A period so far compared with the whole of the one before ("本月至今和上个月全月比", "quarter to date versus all of
last quarter"): the plan keeps the earlier window the question names instead of the same days of the period before,
the compiled SQL reads it, and the answer says its dates. Without such words the comparison stays the same days.
The questions are written here."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from wenshu.contracts import AgentRequest
from wenshu.semantic.plan import QueryPlan, Window
from wenshu.semantic.windows import named_earlier, plan_window


def _month_start(d: date, back: int = 0) -> date:
    y, m = divmod(d.year * 12 + d.month - 1 - back, 12)
    return date(y, m + 1, 1)


@pytest.mark.parametrize("question", [
    "本月至今的销售额和上个月全月比怎么样",
    "month to date revenue against the full previous month",
    "这个月到现在的订单量，跟整个上个月相比",
])  # fmt: skip
def test_the_whole_month_before_is_named_and_kept(question):
    window = plan_window(question, "previous")
    today = date.today()
    assert window.start == _month_start(today)
    assert named_earlier(question, window, "previous") == Window(start=_month_start(today, 1), end=_month_start(today))


@pytest.mark.parametrize("question", ["这个月到目前为止的订单量和上个月比", "month to date revenue versus last month"])
def test_without_whole_words_a_period_so_far_compares_with_the_same_days(question):
    assert named_earlier(question, plan_window(question, "previous"), "previous") is None


def test_a_named_earlier_window_is_left_behind_when_the_window_moves_or_the_comparison_changes():
    plan = QueryPlan(measures=["gmv"], compare="previous", window=Window(start=date(2026, 10, 1), end=date(2026, 12, 5)),
                     against=Window(start=date(2026, 7, 1), end=date(2026, 10, 1)))  # quarter so far, all of the last
    assert plan.earlier() == plan.against
    assert plan.model_copy(update={"compare": "yoy"}).earlier() == Window(start=date(2025, 10, 1), end=date(2025, 12, 5))
    moved = plan.model_copy(update={"window": Window(start=date(2026, 11, 1), end=date(2026, 11, 15))})
    assert moved.earlier() == Window(start=date(2026, 10, 1), end=date(2026, 10, 15))


@pytest.fixture
def agent(plan_agent):
    return plan_agent


def test_the_answer_compares_with_the_whole_month_before_and_says_its_dates(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "compare": "previous"}))
    resp = agent.ask(AgentRequest(message="本月至今的销售额和上个月全月比怎么样"))
    assert resp.error is None, resp.error
    today = date.today()
    start, end = _month_start(today, 1), _month_start(today)
    assert f"'{start.isoformat()}'" in resp.sql and f"< '{end.isoformat()}'" in resp.sql
    assert f"{start.isoformat()} 至 {(end - timedelta(days=1)).isoformat()}" in resp.answer
