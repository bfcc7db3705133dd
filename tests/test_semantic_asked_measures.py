"""What a question asks, read against the demo's bundled model: money per order asked beside an order count is the
average order value, not GMV too, and comes in the order said (多少单，平均一单多少钱); an order count asked with 多少
before the rows (下了多少付款订单、花了多少钱) stays beside the money; "which three …" ranks three; "the matching week of
last year" compares year on year; "divided among" asks for shares; 把上海去掉 leaves a member out."""

from __future__ import annotations

from demo_reading import MODEL, edited, grounded
from wenshu.semantic.mentions import headlined, read


def _read(question: str):
    return headlined(MODEL, read(MODEL, question), question)


def test_money_per_order_beside_an_order_count_is_the_average_order_value_in_the_order_said():
    question = "昨天每个平台各出了多少单，平均一单多少钱"
    plan = grounded(question, {"measures": _read(question).measures})
    assert plan.measures == ["paid_orders", "aov"] and plan.dimensions == ["channel"]


def test_a_count_asked_with_how_many_before_its_rows_stays_beside_the_money():
    question = "近四个月金卡会员总共下了多少付款订单、花了多少钱"
    assert grounded(question, {"measures": _read(question).measures}).measures == ["paid_orders", "gmv"]
    per_order = "上个月平均每笔付款订单里有几件商品"
    assert _read(per_order).measures == ["units_per_order"]


def test_which_three_ranks_three_and_matching_weeks_compare_year_on_year():
    top = grounded("Which three 美妆个护 brands earned the most gross profit last quarter?")
    assert top.dimensions == ["brand"] and top.limit == 3 and top.order == "desc"
    assert grounded("Compare GMV for last week with the matching week of last year.").compare == "yoy"
    assert grounded("How was GMV divided among the three sales channels last month?").share


def test_a_member_taken_out_with_ba_is_left_out():
    hits = [{"table": "cities", "column": "city_name", "value": "上海"}, {"table": "cities", "column": "city_name", "value": "北京"}]
    before = {"measures": ["refund_amount"], "dimensions": ["city"], "order": "desc", "limit": 3}
    plan = edited(before, "把上海和北京都去掉呢", hits)
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("city", "not_in", ["上海", "北京"])]
    assert [(f.op, f.values) for f in edited(before, "把App渠道去掉", hits).filters] == [("not_in", ["app"])]
