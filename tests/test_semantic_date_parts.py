"""Dimensions that are a part of a date: weekend or weekday, the day of the week, the hour of the day. The demo's bundled model reads
them from a question's words, the compiler groups and filters by each engine's own expression, and the numbers
agree with the same sums done in Python over the real demo database. The questions are written here."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from datetime import date

import pytest

from demo_reading import MODEL, edited, planned
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.mentions import read


def paid_by_day(db: str, window) -> dict[date, tuple[float, int]]:
    rows = sqlite3.connect(db).execute(
        "SELECT order_date, SUM(pay_amount), COUNT(*) FROM orders WHERE status = 1 AND order_date >= ? "
        "AND order_date < ? GROUP BY order_date", (window.start.isoformat(), window.end.isoformat())).fetchall()
    return {date.fromisoformat(d[:10]): (s, n) for d, s, n in rows}


def test_weekend_and_weekday_daily_averages_are_one_row_each_and_match_the_days(demo_db_file):
    question = "过去四周里，周末和工作日平均每天的销售额各是多少"
    plan = planned(question, {"measures": ["gmv"]})
    assert plan.dimensions == ["day_type"] and plan.per == "day"
    rows = dict(sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall())
    sums = defaultdict(list)
    for day, (gmv, _) in paid_by_day(demo_db_file, plan.window).items():
        sums["周末" if day.isoweekday() >= 6 else "工作日"].append(gmv)
    assert set(rows) == {"周末", "工作日"}
    for kind, values in sums.items():
        assert rows[kind] == pytest.approx(sum(values) / len(values), abs=0.01)


def test_the_day_of_the_week_splits_without_a_weekly_trend(demo_db_file):
    question = "上个月每个星期几的订单量"
    mentions = read(MODEL, question)
    assert mentions.split == ["weekday"] and mentions.grain is None
    plan = planned(question, {"measures": ["paid_orders"], "dimensions": ["weekday"]})
    rows = dict(sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall())
    counts = defaultdict(int)
    for day, (_, n) in paid_by_day(demo_db_file, plan.window).items():
        counts["星期" + "一二三四五六日"[day.isoweekday() - 1]] += n
    assert rows == counts


def test_a_weekend_filter_reaches_the_traffic_through_its_conformed_part():
    plan = planned("上个月周末的访客数", {"measures": ["uv"]})
    assert [(f.dimension, f.values) for f in plan.filters] == [("day_type", ["1"])]
    sql = compile_plan(MODEL, plan, "sqlite", "en").sql
    assert "stat_date" in sql and "IN ('1')" in sql


def test_an_english_answer_labels_the_kinds_of_day_in_english(demo_db_file):
    plan = planned("orders on weekends vs weekdays last month", {"measures": ["paid_orders"]})
    assert plan.dimensions == ["day_type"]
    rows = sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()
    assert {r[0] for r in rows} == {"weekend", "weekday"}


def test_the_hour_of_the_day_splits_the_paid_orders_in_its_own_order(demo_db_file):
    plan = planned("上礼拜按钟点拆开，每个小时成交了多少笔", {"measures": ["refund_count"]})
    assert plan.measures == ["paid_orders"] and plan.dimensions == ["order_hour"] and plan.limit is None
    rows = sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    expected = sqlite3.connect(demo_db_file).execute(
        "SELECT substr(order_time, 12, 2), COUNT(*) FROM orders WHERE status = 1 AND order_date >= ? AND order_date < ? "
        "GROUP BY 1 ORDER BY 1", (plan.window.start.isoformat(), plan.window.end.isoformat())).fetchall()
    assert rows == expected and len(rows) > 12


def test_a_length_in_hours_names_no_hour_of_the_day():
    for question in ("过去两个小时的成交额", "GMV in the past 48 hours", "最近24小时下了多少单"):
        assert "order_hour" not in read(MODEL, question).dimensions, question


def test_the_same_hour_a_week_earlier_set_beside_it_compares_with_the_gap_and_keeps_every_hour():
    before = planned("上周每个钟点的订单量").model_dump(mode="json")
    plan = edited(before, "把再早一周同一个钟点的也摆在旁边，差了几笔也算一下")
    assert plan.compare == "previous" and plan.difference and plan.limit is None
    assert plan.measures == ["paid_orders"] and plan.dimensions == ["order_hour"]


def test_two_kinds_of_day_asked_one_or_the_other_are_set_side_by_side():
    plan = planned("Did paid orders in the last quarter come in more on weekends or on weekdays?",
                   {"measures": ["paid_orders"]})
    assert plan.dimensions == ["day_type"] and plan.measures == ["paid_orders"]


@pytest.mark.parametrize(("question", "days"), [
    ("paid orders in each of the previous six complete Monday-to-Sunday weeks", None),  # a window's words
    ("GMV since last Friday", None), ("这个星期三的访客数", None),  # one day named as a date
    ("weekly GMV for the last 6 full weeks (Monday-start weeks)", None),  # a week's first day
    ("paid orders on Fridays last quarter", ["5"]),  # every Friday
])  # fmt: skip
def test_a_day_of_the_week_is_a_member_only_when_it_is_no_date(question, days):
    assert read(MODEL, question).values.get("weekday") == days


def test_the_same_weekday_an_earlier_week_is_a_comparison_not_working_days():
    m = read(MODEL, "Paid orders today against the same weekday one week before")
    assert m.values == {} and m.compare == "week"
    assert read(MODEL, "weekday orders last month").values.get("day_type") == ["0"]


def test_a_kind_of_day_of_refunds_is_the_refund_date_not_the_order_date(demo_db_file):
    plan = planned("上个月周末一共退了多少钱")
    assert plan.measures == ["refund_amount"]
    sql = compile_plan(MODEL, plan, "sqlite", "zh").sql
    assert '"refunds"."refund_date"' in sql.split("STRFTIME('%w'", 1)[1][:40]
    with sqlite3.connect(demo_db_file) as db:
        want = db.execute("SELECT ROUND(SUM(refund_amount), 2) FROM refunds WHERE refund_date >= ? AND refund_date < ? "
                          "AND strftime('%w', refund_date) IN ('0', '6')",
                          (plan.window.start.isoformat(), plan.window.end.isoformat())).fetchone()[0]
        assert db.execute(sql).fetchall() == [(want,)]
    orders = compile_plan(MODEL, planned("上个月周末的销售额"), "sqlite", "zh").sql
    assert '"orders"."order_date"' in orders.split("STRFTIME('%w'", 1)[1][:40]
