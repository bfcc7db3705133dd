"""Members, splits and periods said plainly: a short name said again after the longer one it ends ("membership tier
… each tier's share"), members listed then pointed back at ("这四个城市"), "each" after a name (城市各自), a split
introduced by a colon, a number of rows in a unit another count owns ("几笔付了款"), N weeks with no trend (the
last N times seven days), and the order the rows of a trend or a two-way split come in. Read by the rules against
the demo's bundled model, compiled and run on the demo database; the questions are written here."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

import pytest

from demo_reading import MODEL, edited, planned
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.mentions import read


def rows(plan, demo_db_file) -> list[tuple]:
    with sqlite3.connect(demo_db_file) as db:
        return db.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()


@pytest.mark.parametrize(("question", "split"), [
    ("GMV by membership tier over the last month, with each tier's share", ["member_level"]),
    ("上个月按城市等级看，每个等级的销售额占比", ["city_tier"]),
])  # fmt: skip
def test_a_short_name_said_again_after_the_longer_one_is_the_same_dimension(question, split):
    assert planned(question).dimensions == split


def test_members_pointed_back_at_with_their_number_are_each_shown_and_no_top_n():
    m = read(MODEL, "上个月App和小程序这两个渠道各自的订单量")
    assert not m.rank and m.limit is None and "channel" in m.split
    m = read(MODEL, "上个月App、小程序这两个渠道的客单价")
    assert not m.rank and "channel" in m.split
    assert read(MODEL, "上个月销售额最高的两个渠道").limit == 2  # a count before the name, no demonstrative


def test_each_after_a_name_splits_by_it_and_a_colon_introduces_the_split():
    assert planned("上个月华北那几个城市各自卖了多少钱").dimensions == ["city"]
    assert planned("上个月华北大区卖了多少钱").dimensions == []
    plan = planned("Paid orders last month, broken down: member tier and sales channel")
    assert plan.dimensions == ["member_level", "channel"] and plan.measures == ["paid_orders"]


def test_a_number_of_rows_of_a_status_counts_those_rows_whatever_the_unit():
    before = planned("上个月华北各城市卖了多少钱").model_dump()
    after = edited(before, "那各自有几笔付了款")
    assert after.measures == ["paid_orders"] and after.dimensions == ["city"]
    assert planned("上周退了几笔款").measures == ["refund_count"]  # 笔 of the refunds themselves


def test_weeks_said_plainly_end_today_and_weeks_of_a_weekly_trend_are_whole():
    today = date.today()
    plain = planned("近三周各品类的销售额").window
    assert (plain.start, plain.end) == (today - timedelta(days=20), today + timedelta(days=1))
    weekly = planned("近三周每周的销售额").window
    assert weekly.end.weekday() == 0 and (weekly.end - weekly.start).days == 21 and weekly.end <= today


def test_a_trend_split_by_a_coded_dimension_keeps_its_members_in_their_order(demo_db_file):
    plan = planned("new customers by week and membership tier over the last 4 full weeks")  # the grain, then "and"
    assert (plan.grain, plan.dimensions) == ("week", ["member_level"])
    got = rows(plan, demo_db_file)
    assert [r[0] for r in got[:4]] == ["regular", "silver", "gold", "diamond"] and len({r[1] for r in got[:4]}) == 1


def test_a_two_way_split_comes_member_by_member_of_the_first_then_largest_first(demo_db_file):
    plan = planned("上个月每个大区里面，各渠道的订单量")
    assert plan.dimensions == ["region", "channel"]
    got = rows(plan, demo_db_file)
    regions = [r[0] for r in got]
    assert regions == sorted(regions)
    for region in set(regions):
        counts = [r[2] for r in got if r[0] == region]
        assert counts == sorted(counts, reverse=True)


def test_money_spent_on_rows_is_the_money_of_those_rows_not_their_count():
    plan = planned("Which gold members spent more than eight thousand yuan on paid orders in the quarter before this one?")
    assert plan.measures == ["gmv"] and plan.window == planned("上个季度的销售额").window
    assert planned("How many paid orders did we get last week, and how much was spent on them?").measures == \
        ["paid_orders", "gmv"]  # asked how many: the count stays


def test_the_money_of_cancelled_orders_is_their_own_measure(demo_db_file):
    plan = planned("上周取消的订单有几单，一共值多少钱？")
    assert plan.measures == ["cancelled_orders", "cancelled_amount"]
    (count, amount), = rows(plan, demo_db_file)
    assert count > 0 and amount > 0
