"""Things a manager says another way: a period by period said twice (一个月一个月), what counted rows "add up to", a
round bound (破百万), an average per a state's rows (每笔付款订单), distinct people who ordered, rows that "generated"
the money asked (the scope, not a count), "the three … where", 每种 as a split, and a follow-up asking for the
money instead of the pieces. Read by the rules against the demo's bundled model; the questions are written here."""

from __future__ import annotations

import pytest

from demo_reading import edited, grounded, planned


def test_month_by_month_said_twice_is_a_monthly_trend():
    assert planned("今年以来客单价一个月一个月地怎么变的").grain == "month"
    assert planned("上周的订单量一天一天列出来").grain == "day"


@pytest.mark.parametrize(("question", "measures"), [
    ("How many refunds came in yesterday, and what did they come to?", ["refund_count", "refund_amount"]),
    ("How many paid orders did the app get last week and what did those amount to?", ["paid_orders", "gmv"]),
])  # fmt: skip
def test_what_counted_rows_add_up_to_is_their_money(question, measures):
    assert grounded(question).measures == measures


def test_a_round_million_passed_is_a_bound_on_the_total():
    plan = grounded("今年GMV破百万的城市有哪些")
    assert [(h.dimension, h.op, h.values) for h in plan.having] == [("gmv", "gt", [1_000_000])]


def test_an_average_per_paid_order_of_pieces_is_units_per_order_not_per_refund():
    assert grounded("本周平均每笔已付款订单有几件商品").measures == ["units_per_order"]
    assert grounded("本周平均每笔退款多少钱").measures == ["avg_refund"]


def test_distinct_people_who_ordered_are_the_buyers_split_as_said():
    plan = grounded("上周每种会员等级分别有多少个不同的客户下过单")
    assert plan.measures == ["buyers"] and plan.dimensions == ["member_level"]


def test_rows_that_generated_the_money_are_its_scope_and_the_three_where_are_a_top_three():
    plan = grounded("This quarter, which are the three delivery cities where web orders generated the most GMV?")
    assert plan.measures == ["gmv"] and plan.dimensions == ["city"] and plan.limit == 3
    assert [(f.dimension, f.values) for f in plan.filters] == [("channel", ["web"])]
    assert grounded("How many orders and how much GMV did the web bring in last week?").measures == ["paid_orders", "gmv"]


def test_a_follow_up_asking_for_the_amount_swaps_the_pieces_for_the_money_of_the_same_rows():
    before = planned("上周各品牌卖了多少件").model_dump(mode="json")
    assert edited(before, "换成按金额看").measures == ["item_sales"]
    assert edited(before, "switch to the amount").measures == ["item_sales"]
    orders = planned("上周各城市的订单量").model_dump(mode="json")
    assert edited(orders, "改成按金额算").measures == ["gmv"]


def test_how_big_a_row_is_on_average_is_the_money_per_row_and_a_clauses_doer_is_no_split():
    plan = grounded("Last month, how big was a refund on average for each reason shoppers cited?")
    assert plan.measures == ["avg_refund"] and plan.dimensions == ["refund_reason"]
    assert grounded("How many refunds did we get last month and how much on average?").measures != ["avg_refund"]


def test_a_hyphenated_pair_of_splits_is_both_and_who_bought_something_are_the_buyers():
    plan = grounded("GMV this month for every region-and-channel combination")
    assert plan.measures == ["gmv"] and plan.dimensions == ["region", "channel"]
    assert grounded("本月买过东西的金卡会员有多少").measures == ["buyers"]


def test_people_named_right_before_an_average_are_whom_it_is_of_not_a_split():
    plan = grounded("本月顾客平均每笔订单花多少钱", {"measures": ["aov"], "dimensions": ["customer"]})
    assert plan.measures == ["aov"] and plan.dimensions == []
    assert grounded("本月各客户平均每笔订单花多少钱", {"measures": ["aov"], "dimensions": ["customer"]}).dimensions == ["customer"]
