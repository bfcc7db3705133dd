"""Customer, product, traffic and margin questions read by the rules against the demo's bundled model: which
measure a ranking is by, a ratio said through its parts, the whole a share of customers is of, trade words for
city tiers and sign-ups. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, edited, grounded
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.mentions import read
from wenshu.semantic.plan import QueryPlan


@pytest.mark.parametrize(("question", "order_by"), [
    ("本月各品牌的销量和毛利额，按毛利排前五", "gross_profit"),  # 毛利 ends 毛利额
    ("本月各品牌的销量和毛利，按销量从高到低取前五", "units_sold"),
    ("top 4 channels ranked by visitors this week, with visitors and page views", "uv"),
])  # fmt: skip
def test_of_several_measures_a_ranking_is_by_the_one_named_after_by(question, order_by):
    plan = grounded(question)
    assert plan.limit in (4, 5) and plan.order_by == order_by


def test_a_ranking_with_no_measure_named_after_by_keeps_the_models_choice():
    plan = grounded("各渠道的访客数和浏览量，前两名")
    assert plan.limit == 2 and plan.order_by is None


@pytest.mark.parametrize(("question", "measures"), [
    ("how well did the web channel convert visitors to paid orders this month", ["conversion_rate"]),
    ("average selling price per unit by category this year", ["unit_selling_price"]),  # "per unit": its own
    ("visitors, paid orders and conversion by channel", ["uv", "paid_orders", "conversion_rate"]),  # asked beside it
    ("本月每天的转化率（成交单数除以当天UV）", ["conversion_rate"]),  # its parts define it
    ("last month's AOV (GMV divided by paid orders) by region", ["aov"]),
])  # fmt: skip
def test_a_ratio_said_with_its_own_parts_is_the_ratio_alone(question, measures):
    assert sorted(grounded(question).measures) == sorted(measures)


def test_a_share_of_repeat_buyers_among_buyers_is_the_repeat_rate_of_the_scope(demo_db_file):
    plan = grounded("这个季度在华南下过单的客户里，复购客户占几成", {"measures": ["repeat_buyers"]})
    assert plan.measures == ["repeat_rate"] and plan.dimensions == [] and not plan.share
    assert [(f.dimension, f.values) for f in plan.filters] == [("region", ["华南"])]


def test_a_share_of_repeat_buyers_among_those_who_ordered_compiles_to_repeat_over_buyers(demo_db_file):
    plan = grounded("下过单的客户里，复购客户占比多少", {"measures": ["repeat_buyers"]})
    assert plan.measures == ["repeat_rate"]
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan).sql).fetchone()[-1]
        repeat, buyers = conn.execute(
            "SELECT SUM(n >= 2), COUNT(*) FROM (SELECT customer_id, COUNT(*) n FROM orders WHERE status = 1 "
            "GROUP BY customer_id)").fetchone()
    assert got == round(100.0 * repeat / buyers, 2)


@pytest.mark.parametrize(("question", "code"), [
    ("paid orders shipped to first-tier cities last week", "1"),
    ("GMV of new first-tier cities this month", "2"),
    ("refunds in second-tier cities yesterday", "3"),
])  # fmt: skip
def test_city_tiers_said_in_trade_english_are_values_not_a_split(question, code):
    plan = grounded(question)
    assert plan.dimensions == [] and [(f.dimension, f.values) for f in plan.filters] == [("city_tier", [code])]


def test_sign_ups_are_new_customers():
    plan = grounded("sign-ups by member tier so far this year")
    assert plan.measures == ["new_customers"] and plan.dimensions == ["member_level"]


@pytest.mark.parametrize(("question", "order_by"), [
    ("本季度各品牌的毛利和毛利率，按毛利率排", "gross_margin"),  # 按…排: sorted, by the measure named
    ("visitors and page views by channel last month, sorted by page views", "pv"),
])  # fmt: skip
def test_sorted_by_a_named_measure_orders_every_member_by_it(question, order_by):
    plan = grounded(question)
    assert (plan.order, plan.order_by, plan.limit) == ("desc", order_by, None)


def test_a_repeat_customer_rate_is_the_repeat_rate():
    assert grounded("repeat customer rate of Silver members last quarter").measures == ["repeat_rate"]


def test_improving_on_the_week_before_compares_with_it():
    before = {"measures": ["uv"], "window": {"start": "2026-11-16", "end": "2026-11-23"}}
    plan = edited(before, "did that improve on the week before?")
    assert plan.compare == "previous" and plan.window == QueryPlan.model_validate(before).window


def test_a_percentage_bound_before_a_dimension_keeps_the_members_that_pass():
    plan = grounded("本季度毛利率高于40%的品牌有哪些")  # the % between the bound and 的
    assert plan.dimensions == ["brand"] and [(h.dimension, h.op, h.values) for h in plan.having] == [
        ("gross_margin", "gt", [40])]


def test_customers_ranked_are_never_counted_one_each():
    """付款客户数 is buyers, yet "付款最多的3个客户" ranks customers: a distinct count of the key it splits by is 1
    for every member, so the words backing it do not make it the measure (free SQL answers)."""
    got = ground(QueryPlan(measures=["buyers"], dimensions=["customer"]), MODEL, "这周付款最多的3个客户")
    assert got.plan is None or "buyers" not in got.plan.measures


def test_a_bound_said_in_money_is_no_bound_on_units():
    got = ground(QueryPlan(measures=["units_sold"], dimensions=["product"]), MODEL,
                 "which items priced below 80 yuan sold the most units this month")
    assert got.plan is None or got.plan.having == []  # a price per item, not a total of units: free SQL answers
    plan = grounded("which brands sold more than 3000 units this month")
    assert [(h.dimension, h.op, h.values) for h in plan.having] == [("units_sold", "gt", [3000])]


@pytest.mark.parametrize("question", [
    "上周有多少会员没有下过单",
    "这个月从没购买过家用电器的客户数",
    "last month's customers: 多少客户没有下单",
])  # fmt: skip
def test_a_count_of_those_who_did_not_act_is_not_the_count_of_those_who_did(question):
    got = ground(QueryPlan(measures=["buyers"]), MODEL, question)
    assert got.plan is None and ("did not" in got.reason or "picked by rows" in got.reason), got.reason


def test_a_status_said_as_not_done_still_filters_its_rows():
    plan = grounded("还没付款的订单一共多少笔")
    assert plan.filters and plan.filters[0].dimension == "order_status"


def test_a_list_of_customers_who_did_not_order_goes_to_free_sql():
    from wenshu.semantic.listing import detail
    question = "最近一周没下过单的会员名单"
    listed = detail(MODEL, read(MODEL, question), question)
    assert listed is not None and listed.plan is None


def test_repeat_buyers_as_a_share_of_those_who_placed_an_order_is_the_repeat_rate():
    m = read(MODEL, "上个季度的回头客占当季下过单客户的百分之几？")  # 下过单: 下单 with its aspect particle
    assert sorted(m.measures) == ["buyers", "repeat_buyers"] and m.share
    assert grounded("上个季度的回头客占当季下过单客户的百分之几？").measures == ["repeat_rate"]


def test_a_small_order_count_asked_with_its_share_of_all_paid_orders_states_both():
    plan = grounded("上周实付不到50元的订单有多少，占全部已支付订单的百分之几？")
    assert plan.share and plan.value_too and [f.op for f in plan.filters if "." in f.dimension] == ["lt"]


def test_a_measures_own_definition_restated_is_no_bound_and_the_count_asked_stays_beside_its_rate():
    plan = grounded("上个季度的回头客有多少人？就是至少成交两单的，占当季下过单客户的百分之几")
    assert plan.measures == ["repeat_buyers", "repeat_rate"] and not plan.having and not plan.share
    assert grounded("上个月取消的订单有多少，占全部订单的百分之几").measures == ["cancelled_orders", "cancel_rate"]
    assert grounded("what percentage of orders were cancelled last month").measures == ["cancel_rate"]
