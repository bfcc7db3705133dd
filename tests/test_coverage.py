"""The evaluate step's coverage checks: named values and time windows must reach the SQL."""

from __future__ import annotations

import pytest

from wenshu.agent.coverage import (
    asks_per_group,
    copied_literals,
    missing_grouping,
    missing_terms,
    missing_values,
    missing_windows,
)
from wenshu.agent.checks import Answer, run_checks
from wenshu.contracts import AgentRequest
from wenshu.knowledge.time_phrases import find_windows

def coverage_feedback(question, sql, values, windows, dialect, examples=(), glossary=()):
    """The evaluate step's feedback on an answer with one row (so only the coverage checks can fire)."""
    answer = Answer(question, "aggregate", sql, ["n"], [[1]], 1, dialect, values=list(values), windows=list(windows),
                    examples=list(examples), glossary=list(glossary))
    return run_checks(answer)[0]


TIER = [{"table": "cities", "column": "city_tier", "value": "1", "label": "一线"}]
Q = "上个月一线城市的已支付订单一共多少笔？"
LAST_MONTH = "o.order_date >= date('now', 'start of month', '-1 month') AND o.order_date < date('now', 'start of month')"


def test_a_named_value_must_be_filtered_on():
    sql = f"SELECT COUNT(*) FROM orders o WHERE o.status = 1 AND {LAST_MONTH}"
    assert missing_values(Q, sql, TIER, "sqlite") == TIER
    fixed = f"SELECT COUNT(*) FROM orders o JOIN cities c ON c.city_id = o.city_id WHERE c.city_tier = 1 AND {LAST_MONTH}"
    assert missing_values(Q, fixed, TIER, "sqlite") == []
    # A hint whose value and label the question does not contain (a fuzzy match) is not enforced.
    assert missing_values("上个月的订单量", sql, TIER, "sqlite") == []
    assert "filter with cities.city_tier = 1" in coverage_feedback(Q, sql, TIER, [], "sqlite")


def test_the_time_window_must_be_the_questions():
    windows = find_windows(Q)
    copied = "SELECT COUNT(*) FROM orders o WHERE o.order_date >= date('now', 'start of month')"
    assert missing_windows(copied, windows) == windows
    assert missing_windows(f"SELECT COUNT(*) FROM orders o WHERE {LAST_MONTH}", windows) == []  # '-1 month' == '-1 months'
    open_ended = "SELECT COUNT(*) FROM orders o WHERE o.order_date >= date('now', 'start of month', '-1 month')"
    assert missing_windows(open_ended, windows) == windows  # 上个月 ends where this month starts
    last_week = find_windows("上周的订单量")
    between = "SELECT 1 FROM orders WHERE order_date BETWEEN date('now','weekday 0','-13 days') AND date('now','weekday 0','-7 days')"
    assert missing_windows(between, last_week) == []
    assert "上个月" in coverage_feedback(Q, copied, [], windows, "sqlite")
    assert coverage_feedback(Q, "SELECT nonsense(", TIER, [], "sqlite") == ""  # unparseable: the validator's job


def test_the_agent_regenerates_when_a_named_filter_is_missing(agent_all_checks, fake_model):
    agent = agent_all_checks  # value_filter is off by default (it did not pay on Spider-DK)
    miss = f"SELECT COUNT(*) AS 订单量 FROM orders o WHERE o.status = 1 AND {LAST_MONTH}"
    fixed = ("SELECT COUNT(*) AS 订单量 FROM orders o JOIN cities c ON c.city_id = o.city_id "
             f"WHERE c.city_tier = 1 AND o.status = 1 AND {LAST_MONTH}")  # fmt: skip
    fake_model.queue(miss, fixed)
    resp = agent.ask(AgentRequest(message=Q))
    assert resp.error is None and "city_tier = 1" in resp.sql
    assert [t.status for t in resp.trace if t.node == "evaluate"] == ["retry", "ok"]
    second_prompt = fake_model.calls[-1][-1].content
    assert "filter with cities.city_tier = 1" in second_prompt


@pytest.mark.parametrize(("question", "per_group"), [
    ("本月每个渠道的客单价各是多少？", True),
    ("上个月各等级城市订单量的占比", True),
    ("Cancellation rate of each channel for last month?", True),
    ("GMV by city tier for last quarter?", True),
    ("How many students per major?", True),
    ("上个月退款率多少？", False),
    ("平均每天的UV是多少", False),  # a ratio, not a breakdown
    ("How many pets are owned by students older than 20?", False),  # passive "by"
    ("List singers sorted by age", False),
    ("On average, how many units per order?", False),
])
def test_per_group_wording(question, per_group):
    assert asks_per_group(question) is per_group


def test_a_per_group_question_needs_group_by():
    q = "Cancellation rate of each channel for last month?"
    flat = "SELECT ROUND(100.0 * SUM(status = 2) / COUNT(*), 2) AS rate FROM orders"
    assert missing_grouping(q, flat, "sqlite")
    assert not missing_grouping(q, flat.replace("AS rate", "AS rate, channel") + " GROUP BY channel", "sqlite")
    assert not missing_grouping(q, "SELECT channel, COUNT(*) OVER (PARTITION BY channel) FROM orders", "sqlite")
    assert not missing_grouping("What was the cancellation rate last month?", flat, "sqlite")
    assert "GROUP BY" in coverage_feedback(q, flat, [], [], "sqlite")


def test_the_agent_regenerates_a_flat_answer_to_a_per_group_question(agent, fake_model):
    flat = "SELECT COUNT(*) AS 订单量 FROM orders WHERE status = 1"
    grouped = "SELECT channel AS 渠道, COUNT(*) AS 订单量 FROM orders WHERE status = 1 GROUP BY channel"
    fake_model.queue(flat, grouped)
    resp = agent.ask(AgentRequest(message="各渠道的订单量"))
    assert resp.error is None and "GROUP BY" in resp.sql and resp.row_count == 3
    assert "GROUP BY" in fake_model.calls[-1][-1].content


def test_when_the_retry_never_runs_the_answer_that_ran_is_kept(agent, fake_model):
    flat = "SELECT COUNT(*) AS 订单量 FROM orders"
    fake_model.queue(flat, *["DELETE FROM orders"] * 3)
    resp = agent.ask(AgentRequest(message="各渠道的订单量"))
    assert resp.error is None and resp.sql.startswith(flat) and resp.rows[0][0] > 100_000
    assert resp.trace[-1].node == "fallback" and resp.trace[-1].detail == "kept the last answer that ran"


def test_a_filter_value_copied_from_an_example_must_go():
    examples = [{"question": "上周华东大区的GMV", "sql": "SELECT SUM(pay_amount) FROM orders o JOIN cities c "
                 "ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id WHERE r.region_name = '华东'"}]
    copied = examples[0]["sql"] + " AND o.channel = 'app'"
    assert copied_literals("去年双十一那天GMV多少？", copied, examples, [], [], "sqlite") == ["华东"]
    assert copied_literals("华东去年双十一的GMV", copied, examples, [], [], "sqlite") == []  # the question says it
    assert copied_literals("那天呢", copied, examples, [], ["去年华东的GMV"], "sqlite") == []  # an earlier turn said it
    hint = [{"table": "regions", "column": "region_name", "value": "华东"}]
    assert copied_literals("华东区去年的GMV", copied, examples, hint, [], "sqlite") == []
    assert "'华东'" in coverage_feedback("去年双十一那天GMV多少？", copied, [], [], "sqlite", examples=examples)


def test_a_value_filtered_on_the_wrong_tables_column_is_reported():
    hint = [{"table": "airlines", "column": "Airline", "value": "United Airlines"}]
    q = 'What are flight numbers of Airline "United Airlines"?'
    wrong = "SELECT FlightNo FROM flights WHERE Airline = 'United Airlines'"  # flights.Airline holds codes
    assert missing_values(q, wrong, hint, "sqlite") == hint
    assert "join airlines" in coverage_feedback(q, wrong, hint, [], "sqlite")
    right = ("SELECT f.FlightNo FROM flights f JOIN airlines a ON a.uid = f.Airline "
             "WHERE a.Airline = 'United Airlines'")  # fmt: skip
    assert missing_values(q, right, hint, "sqlite") == []


def test_a_value_stored_in_several_columns_is_covered_by_any_of_them():
    hints = [{"table": "singer", "column": "Country", "value": "France"},
             {"table": "stadium", "column": "Location", "value": "France"}]  # fmt: skip
    q = "How many singers are from France?"
    assert missing_values(q, "SELECT COUNT(*) FROM singer WHERE Country = 'France'", hints, "sqlite") == []
    assert missing_values(q, "SELECT COUNT(*) FROM singer", hints, "sqlite") == hints[:1]


def test_a_glossary_term_must_use_the_columns_of_its_definition():
    aov = [{"term": "客单价", "synonyms": ["average order value"],
            "sql": "ROUND(SUM(orders.pay_amount) / COUNT(*), 2) with orders.status = 1"}]  # fmt: skip
    q = "本月每个渠道的客单价各是多少？"
    traffic = "SELECT channel, SUM(uv) AS uv FROM daily_traffic GROUP BY channel"
    assert missing_terms(q, traffic, aov, "sqlite") == aov
    assert "compute it as ROUND(SUM(orders.pay_amount)" in coverage_feedback(q, traffic, [], [], "sqlite", glossary=aov)
    right = "SELECT channel, ROUND(SUM(pay_amount) / COUNT(*), 2) FROM orders WHERE status = 1 GROUP BY channel"
    assert missing_terms(q, right, aov, "sqlite") == []
    assert missing_terms("本月各渠道的UV", traffic, aov, "sqlite") == []  # the term is not in the question
