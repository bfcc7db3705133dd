"""Spans of clock time in a question ("晚上9点以后", "between 10 a.m. and 2 p.m.") filter the hour of the day:
read by `knowledge.clock_hours`, kept as one filter (no split by hour unless each is asked for), compiled and run on
the demo database against SQL written here; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, planned
from wenshu.knowledge.clock_hours import hours_said
from wenshu.semantic.compile import compile_plan


@pytest.mark.parametrize(("question", "hours"), [
    ("昨天晚上9点以后的销售额", range(21, 24)),
    ("上周每天19点到23点的订单量", range(19, 23)),
    ("上个月夜里11点到凌晨3点的退款", [23, 0, 1, 2]),
    ("本月上午10:30到12:00的客单价", [10, 11]),
    ("上周早上七点前下的单有多少", range(0, 7)),
    ("GMV between 10 a.m. and 2 p.m. last week", range(10, 14)),
    ("orders placed after 9pm yesterday", range(21, 24)),
    ("paid orders from 6 until 9 p.m. last month", range(18, 21)),
    ("what came in from noon to midnight", range(12, 24)),
    ("revenue 8am-11am this week", range(8, 11)),
])  # fmt: skip
def test_a_span_of_clock_time_is_the_hours_it_covers(question, hours):
    said = hours_said(question)
    assert said is not None and said.hours == tuple(hours)
    assert not any(w in question[said.span[0]:said.span[1]] for w in ("昨天", "上周", "本月", "last", "this week"))


@pytest.mark.parametrize("question", [
    "截至今天上午10点的销售额",  # a moment the data is counted to, no span of hours
    "最近24小时的订单",  # a length of time
    "晚上的订单多还是白天的多",  # parts of the day with no time said
    "orders with between 3 and 6 items",  # numbers, no clock
    "再便宜一点以后还卖得动吗",  # 一点: a little
    "3-5 items per order",
])  # fmt: skip
def test_no_span_of_clock_time_is_read_where_none_is_said(question):
    assert hours_said(question) is None


def _run(plan, demo_db_file) -> list[tuple]:
    with sqlite3.connect(demo_db_file) as db:
        return db.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()


def test_the_share_of_a_span_of_hours_is_one_number_against_all_of_them(demo_db_file):
    plan = planned("上个月夜里10点以后付款的订单占全部已付款订单的比例")
    assert plan.share and plan.dimensions == [] and plan.measures == ["paid_orders"]
    assert [f.values for f in plan.filters if f.dimension == "order_hour"] == [["22", "23"]]
    start, end = plan.window.start.isoformat(), plan.window.end.isoformat()
    with sqlite3.connect(demo_db_file) as db:
        want = db.execute("SELECT ROUND(100.0 * SUM(strftime('%H', order_time) >= '22') / COUNT(*), 2) FROM orders "
                          "WHERE status = 1 AND order_date >= ? AND order_date < ?", (start, end)).fetchone()[0]
    assert _run(plan, demo_db_file) == [(want,)]


def test_a_span_of_hours_filters_a_split_by_another_dimension_and_is_no_split_itself(demo_db_file):
    plan = planned("GMV by channel between 7 a.m. and 10 a.m. last week")
    assert plan.dimensions == ["channel"]
    assert [f.values for f in plan.filters if f.dimension == "order_hour"] == [["07", "08", "09"]]
    start, end = plan.window.start.isoformat(), plan.window.end.isoformat()
    with sqlite3.connect(demo_db_file) as db:
        want = dict(db.execute("SELECT channel, ROUND(SUM(pay_amount), 2) FROM orders WHERE status = 1 AND "
                               "order_date >= ? AND order_date < ? AND CAST(strftime('%H', order_time) AS INTEGER) "
                               "BETWEEN 7 AND 9 GROUP BY channel", (start, end)).fetchall())
    assert {row[0]: row[1] for row in _run(plan, demo_db_file)} == want


def test_each_hour_of_a_span_is_its_own_row_when_each_is_asked_for():
    plan = planned("上周晚上8点到11点每个小时分别有多少单")
    assert plan.dimensions == ["order_hour"]
    assert [f.values for f in plan.filters if f.dimension == "order_hour"] == [["20", "21", "22"]]


def test_noon_said_in_the_afternoon_is_noon_and_midnight_said_at_night_is_midnight():
    assert hours_said("上周下午12点到3点之间的订单").hours == (12, 13, 14)
    assert hours_said("昨天晚上10点到12点的订单").hours == (22, 23)
