"""A ratio asked for by its parts: an average of a ratio's numerator per its denominator's rows, and a
share of a whole with nothing to split it by, are the semantic model's ratios. Pure functions on the
demo's bundled model; the compiled rate is checked against SQL written by hand on a real demo database.
The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, window: dict | None = None) -> QueryPlan:
    m = read(MODEL, question)
    got = ground(QueryPlan.model_validate({"measures": m.measures or ["gmv"], "window": window}), MODEL, question)
    assert got.plan is not None, got.reason
    return got.plan


@pytest.mark.parametrize(("question", "measures"), [
    ("the mean amount spent per order by channel", ["aov"]),  # not a list of each order's amount
    ("average units sold per order this quarter", ["units_per_order"]),
    ("how much do shoppers spend per order in each channel this year", ["aov"]),  # the numerator, then "per"
])  # fmt: skip
def test_an_average_of_a_numerator_per_its_denominators_rows_is_the_ratio(question, measures):
    plan = grounded(question)
    assert plan.measures == measures and plan.records is None


def test_an_average_not_per_the_denominators_rows_is_not_the_ratio():
    assert "aov" not in grounded("average GMV of the orders by channel").measures  # no "per order"
    assert "aov" not in grounded("paid orders per day and GMV last week").measures  # per a day, not an order


@pytest.mark.parametrize(("question", "measures"), [
    ("上个月各个渠道平均每单大概花多少钱", ["aov"]),  # 单: the orders' unit; 多少钱: the numerator is money
    ("上周平均每笔退了多少钱", ["avg_refund"]),  # 笔: the refunds' unit
    ("这个月平均一单要花多少钱", ["aov"]),
    ("今年平均每单能卖出几件", ["units_per_order"]),  # 几件: the numerator's unit, not a count of units beside it
])  # fmt: skip
def test_an_average_per_a_denominator_unit_is_the_ratio_whose_numerator_unit_is_asked(question, measures):
    assert grounded(question).measures == measures


@pytest.mark.parametrize(("question", "measures"), [
    ("这个季度平均每位客户下了几单", ["orders_per_buyer"]),  # 客户: what the buyers measure counts distinct
    ("每个买家平均花多少钱", ["spend_per_buyer"]),
    ("今年平均一位会员消费了多少钱", ["spend_per_buyer"]),
])  # fmt: skip
def test_an_average_per_the_entity_a_distinct_count_counts_is_its_ratio_not_a_split(question, measures):
    plan = grounded(question)
    assert (plan.measures, plan.dimensions) == (measures, [])


def test_each_customers_count_without_an_average_is_a_split():
    plan = grounded("本月每个客户的订单数")
    assert (plan.measures, plan.dimensions) == (["paid_orders"], ["customer"])


@pytest.mark.parametrize(("question", "measures"), [
    ("这个月的件单价", ["unit_selling_price"]),  # 件单价: sales per unit sold, not units per order
    ("近30天各渠道的连带率", ["units_per_order"]),
    ("average selling price by brand this year", ["unit_selling_price"]),
    ("purchase frequency last quarter", ["orders_per_buyer"]),
    ("各渠道的访问深度", ["pages_per_visitor"]), ("page views per visitor on the app", ["pages_per_visitor"]),
    ("各渠道平均每个访客浏览几个页面", ["pages_per_visitor"]),  # the parts, averaged per the denominator's word
    ("本月各大区的单均优惠", ["avg_discount"]), ("平均每单用优惠券抵了多少钱", ["avg_discount"]),
    ("上周平均一单花多少钱", ["aov"]),  # money per order with no measure named: the headline's, not discounts'
    ("how many paid orders did each buyer place per person on average", ["orders_per_buyer"]),  # per person: 人均
])  # fmt: skip
def test_retail_ratios_are_named_by_their_trade_words(question, measures):
    assert grounded(question).measures == measures


def test_a_unit_after_每_without_an_average_names_no_ratio():
    assert read(MODEL, "每单金额列出来").measures != ["aov"]  # each order's amount: no average asked
    assert read(MODEL, "平均每单").measures == []  # neither money nor a numerator unit asked: no ratio chosen


@pytest.mark.parametrize(("question", "measures", "share"), [
    ("what share of all orders placed this week got cancelled?", ["cancel_rate"], False),
    ("what proportion of settled orders were refunded orders last month", ["refund_rate"], False),
    ("cancelled orders: share by channel", ["cancelled_orders"], True),  # split: a share of each channel
    ("what share of GMV came from the app", ["gmv"], True),  # GMV / orders is money, not a percentage
    ("paid orders as a share of visitors", ["conversion_rate"], False),  # the whole named too: the rate of the two
])  # fmt: skip
def test_a_share_of_a_whole_with_no_split_is_the_percentage_ratio_of_the_part(question, measures, share):
    plan = grounded(question)
    assert (plan.measures, plan.share) == (measures, share)


@pytest.mark.parametrize(("question", "measures", "grain"), [
    ("今年每个月退款订单的比例", ["refund_rate"], "month"),  # each month's rate, not each month's share of the year
    ("the app's visitors converting into paid orders, week by week this quarter", ["conversion_rate"], "week"),
])  # fmt: skip
def test_a_rate_asked_per_period_is_the_ratio_of_each_period(question, measures, grain):
    plan = grounded(question)
    assert (plan.measures, plan.grain, plan.share) == (measures, grain, False)


@pytest.mark.parametrize(("question", "days", "measure", "expected"), [
    ("What percent of orders were cancelled over the last 30 days?", 29, "cancel_rate",
     "SELECT ROUND(100.0 * SUM(status = 2) / COUNT(*), 2) FROM orders WHERE order_date >= ? AND order_date < ?"),
    ("各渠道近60天平均每单优惠多少钱", 59, "avg_discount",  # total minus paid, over paid orders
     "SELECT channel, ROUND(AVG(total_amount - pay_amount), 2) FROM orders WHERE status = 1"
     " AND order_date >= ? AND order_date < ? GROUP BY channel ORDER BY 2 DESC"),
])  # fmt: skip
def test_a_ratio_asked_by_its_parts_compiles_to_the_sql_written_here(question, days, measure, expected, demo_db_file):
    with sqlite3.connect(demo_db_file) as conn:
        start, end = conn.execute(f"SELECT date('now', '-{days} days'), date('now', '+1 day')").fetchone()
        plan = grounded(question, {"start": start, "end": end})
        got = conn.execute(compile_plan(MODEL, plan).sql).fetchall()
        want = conn.execute(expected, (start, end)).fetchall()
        assert plan.measures == [measure] and got == want and want[0][-1] > 0
