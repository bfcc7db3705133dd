"""Follow-ups keep the conditions of the answer they build on (checked on the real demo catalog)."""

from __future__ import annotations

import pytest

from wenshu.agent.checks import Answer, run_checks
from wenshu.agent.followup import dropped_conditions
from wenshu.contracts import AgentRequest
from wenshu.knowledge.sync import current_catalog

SOUTH_LAST_WEEK = (
    "SELECT ROUND(SUM(o.pay_amount), 2) AS 销售额 FROM orders o JOIN cities c ON c.city_id = o.city_id "
    "JOIN regions r ON r.region_id = c.region_id WHERE r.region_name = '华南' AND o.status = 1 "
    "AND o.order_date BETWEEN date('now', 'weekday 0', '-13 days') AND date('now', 'weekday 0', '-7 days')"
)
BY_CITY_NO_REGION = (
    "SELECT c.city_name, SUM(o.pay_amount) AS 销售额 FROM orders o JOIN cities c ON c.city_id = o.city_id "
    "WHERE o.status = 1 AND o.order_date BETWEEN date('now', 'weekday 0', '-13 days') "
    "AND date('now', 'weekday 0', '-7 days') GROUP BY c.city_name"
)


@pytest.fixture
def catalog(store):
    return current_catalog(store, "demo")


def test_a_dropped_filter_is_named_with_its_table(catalog):
    assert dropped_conditions(SOUTH_LAST_WEEK, BY_CITY_NO_REGION, catalog, "sqlite") == ["regions.region_name = '华南'"]
    kept = BY_CITY_NO_REGION.replace("WHERE", "JOIN regions r ON r.region_id = c.region_id WHERE r.region_name = '华南' AND")
    assert dropped_conditions(SOUTH_LAST_WEEK, kept, catalog, "sqlite") == []


def test_a_switch_to_an_unrelated_table_or_a_new_window_drops_nothing(catalog):
    assert dropped_conditions(SOUTH_LAST_WEEK, "SELECT stat_date, SUM(uv) FROM daily_traffic GROUP BY 1", catalog, "sqlite") == []
    flat = "SELECT channel, SUM(pay_amount) FROM orders GROUP BY channel"
    with_window = dropped_conditions(SOUTH_LAST_WEEK, flat, catalog, "sqlite", new_window=True)
    assert with_window == ["regions.region_name = '华南'", "orders.status = 1"]
    assert run_checks(Answer("q", "aggregate", flat, ["n"], [[1]], 1, "sqlite", catalog=catalog)) == ("", [])


def test_the_agent_regenerates_a_follow_up_that_lost_the_earlier_filter(agent, fake_model):
    fixed = BY_CITY_NO_REGION.replace(
        "WHERE", "JOIN regions r ON r.region_id = c.region_id WHERE r.region_name = '华南' AND")
    fake_model.queue(SOUTH_LAST_WEEK, BY_CITY_NO_REGION, fixed)
    first = agent.ask(AgentRequest(message="上周华南大区销售额多少？"))
    assert first.error is None
    second = agent.ask(AgentRequest(message="再按城市拆分一下", conversation_id=first.conversation_id))
    assert second.error is None and "华南" in second.sql
    assert "regions.region_name = '华南'" in fake_model.calls[-1][-1].content


def test_a_terse_follow_up_naming_a_value_of_the_data_is_a_data_question_without_the_model(agent, fake_model):
    by_city = ("SELECT c.city_name, ROUND(SUM(o.pay_amount), 2) AS 销售额 FROM orders o JOIN cities c "
               "ON c.city_id = o.city_id WHERE o.status = 1 GROUP BY c.city_name")
    fake_model.queue(by_city, by_city.replace("GROUP BY", "AND c.city_name = '广州' GROUP BY"))
    first = agent.ask(AgentRequest(message="每个城市累计卖了多少钱"))
    assert first.error is None
    second = agent.ask(AgentRequest(message="广州那边怎样", conversation_id=first.conversation_id))
    intent = next(t for t in second.trace if t.node == "intent")
    assert intent.detail.startswith("data/") and intent.detail.endswith("(rules)"), intent.detail
    assert second.error is None and second.rows and {r[0] for r in second.rows} == {"广州"}
