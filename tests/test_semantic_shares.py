"""Shares and ranked lists as a controller or a regional manager asks for them: the whole a share is taken of
("of all 华北 orders": that region's orders, not every order), a share with nothing named to split by ("regional
contribution", 品牌销售额构成), "in percentage terms", the same days of last week, "how much … paid", a
follow-up asking what share the previous number is, and a list ranked by the listed field its rank word names.
Pure functions on the demo's bundled model; compiled SQL run on a real demo database; the questions are
written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground, unanswerable
from wenshu.semantic.library import bundled_text
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import Filter, QueryPlan

MODEL = parse_model(bundled_text("demo"))
_DIAMOND_IN_NORTH = ("SELECT 100.0 * SUM(cu.member_level = 3) / COUNT(*) FROM orders o"
                     " JOIN customers cu ON cu.customer_id = o.customer_id JOIN cities ci ON ci.city_id = o.city_id"
                     " JOIN regions r ON r.region_id = ci.region_id WHERE o.status = 1 AND r.region_name = '华北'")


def _share(conn, plan: QueryPlan) -> float:
    return conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()[0][-1]


@pytest.mark.parametrize("question", [
    "华北的订单里钻石会员下的单占多少比例",  # the whole said before the part, with 里
    "钻石会员的订单占华北订单的百分比",  # 占 + the whole
    "what percentage of all North China orders were placed by diamond members",  # "of all" + the whole
])  # fmt: skip
def test_a_share_of_a_named_whole_keeps_the_wholes_filter(question, demo_db_file):
    plan = ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan
    assert plan.share and plan.share_within == ["region"]
    assert {f.dimension for f in plan.filters} == {"region", "member_level"}
    with sqlite3.connect(demo_db_file) as conn:
        assert _share(conn, plan) == round(conn.execute(_DIAMOND_IN_NORTH).fetchone()[0], 2)
        everything = plan.model_copy(update={"share_within": []})  # of every order: a smaller share
        assert _share(conn, everything) < _share(conn, plan)


@pytest.mark.parametrize("question", ["华北占全部订单的比例", "the share of North China in total orders"])
def test_a_share_of_the_named_part_divides_by_everything(question):
    plan = ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan
    assert plan.share and plan.share_within == [] and [f.dimension for f in plan.filters] == ["region"]


@pytest.mark.parametrize(("question", "dimension"), [
    ("regional contribution to GMV this year, as a % of the total", "region"),  # named, no split word
    ("家用电器 本月 品牌销售额构成", "brand"),  # a dimension's word begins the measure's name
    ("how was GMV split across channels this month in percentage terms?", "channel"),
])  # fmt: skip
def test_a_share_with_nothing_else_to_divide_splits_by_the_named_dimension(question, dimension):
    plan = ground(QueryPlan(measures=read(MODEL, question).measures), MODEL, question).plan
    assert plan.share and plan.dimensions == [dimension]


def test_a_percent_of_another_measure_is_no_share_split():
    assert read(MODEL, "gross profit by brand, as a percentage of product sales").split == ["brand"]  # not also product


@pytest.mark.parametrize("question", ["本周截至今天的订单量，和上周同一时段比怎么样", "本月到目前的销售额和上月同一时段相比"])
def test_the_same_stretch_of_the_earlier_period_compares(question):
    assert read(MODEL, question).compare in ("week", "previous")


def test_how_much_was_paid_backs_the_sum_of_the_paid_field():
    question = "top 5 customers this year and how much each of them paid"
    assert unanswerable(MODEL, read(MODEL, question), question) is None
    plan = ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan
    assert (plan.measures, plan.dimensions, plan.limit) == (["gmv"], ["customer"], 5)


def test_the_doer_of_a_measures_verb_backs_it():
    question = "who were the top 3 spenders last month"  # "spend" is GMV's word; spenders are customers
    plan = ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan
    assert (plan.measures, plan.dimensions, plan.limit) == (["gmv"], ["customer"], 3)
    assert unanswerable(MODEL, read(MODEL, "list our customers"), "list our customers") is not None


def test_a_follow_up_asking_the_share_of_the_last_number(demo_db_file):
    before = QueryPlan(measures=["paid_orders"], filters=[Filter(dimension="member_level", values=["3"]),
                                                          Filter(dimension="region", values=["华北"])])
    question = "and what share of all North China orders is that?"
    plan = edit(before, read(MODEL, question), None, question, MODEL)
    assert (plan.share, plan.value_too, plan.share_within) == (True, True, ["region"])
    with sqlite3.connect(demo_db_file) as conn:
        row = conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()[0]
    assert len(row) == 2 and row[1] == round(sqlite3.connect(demo_db_file).execute(_DIAMOND_IN_NORTH).fetchone()[0], 2)


@pytest.mark.parametrize(("question", "column"), [
    ("上周取消的订单里金额最高的3笔，列出订单号和订单金额", "total_amount"),
    ("last week's cancelled orders with the 3 highest amounts: order number and order amount", "total_amount"),
])  # fmt: skip
def test_a_ranked_list_ranks_by_the_listed_field_its_rank_word_names(question, column, demo_db_file):
    plan = detail(MODEL, read(MODEL, question), question).plan
    assert (plan.order_by, plan.order, plan.limit, plan.columns) == (column, "desc", 3, ["order_id", "total_amount"])
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    assert len(rows) == 3 and [r[1] for r in rows] == sorted((r[1] for r in rows), reverse=True)


def test_a_bound_on_a_word_of_a_listed_field_bounds_that_field(demo_db_file):
    question = "上周取消的订单里金额在3000以上的，列出订单号、下单时间和订单金额"
    plan = detail(MODEL, read(MODEL, question), question).plan
    assert [(f.dimension, f.op, f.values) for f in plan.filters if f.op != "in"] == [("total_amount", "gte", [3000])]
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    assert rows and all(r[-1] >= 3000 for r in rows)


@pytest.mark.parametrize("question", ["上个月取消的订单里最大的5笔", "the 5 biggest unpaid orders last month"])
def test_rows_the_ranking_measure_leaves_out_rank_by_their_own_amount(question, demo_db_file):
    plan = detail(MODEL, read(MODEL, question), question).plan  # cancelled / unpaid orders have no amount paid
    assert (plan.order_by, plan.limit) == ("total_amount", 5)
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    amounts = [r[-1] for r in rows]
    assert len(rows) == 5 and amounts == sorted(amounts, reverse=True) and amounts[0] > 0
    paid = detail(MODEL, read(MODEL, "the 5 biggest paid orders last month"), "the 5 biggest paid orders last month").plan
    assert paid.order_by == "gmv"  # paid orders: by the amount paid, as before


def test_how_much_a_filtered_part_contributed_shows_its_value_beside_its_share():
    asked = ground(QueryPlan(measures=["gmv"]), MODEL, "本月华东贡献了多少成交额，占全部的百分之几").plan
    assert (asked.share, asked.value_too) == (True, True)
    assert ground(QueryPlan(measures=["gmv"]), MODEL, "本月华东的成交额占比").plan.value_too is False
