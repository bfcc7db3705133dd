"""Attributes shown beside each member of a split (`semantic.attributes`): "消费超过5000元的客户有哪些？列出姓名和会员
等级" shows each customer's level on their row; "按客户性别" is the gender's split, not each customer's. Read from the
question's words on the demo's bundled model, compiled and run on a real demo database against SQL written here. The
questions are written here."""

from __future__ import annotations

import sqlite3

from demo_reading import MODEL, planned
from wenshu.semantic.compile import compile_plan


def test_a_customer_attribute_named_beside_the_split_is_shown_once_per_customer(demo_db_file):
    plan = planned("上个月消费金额超过5000元的客户有哪些？列出姓名和会员等级")
    assert plan.dimensions == ["customer", "member_level"] and [h.dimension for h in plan.having] == ["gmv"]
    got = sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    start, end = plan.window.start.isoformat(), plan.window.end.isoformat()
    want = sqlite3.connect(demo_db_file).execute(
        "SELECT c.customer_id, c.customer_name, c.member_level, ROUND(SUM(o.pay_amount), 2) FROM orders o "
        "JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 1 AND o.order_date >= ? "
        "AND o.order_date < ? GROUP BY c.customer_id HAVING SUM(o.pay_amount) > 5000", (start, end)).fetchall()
    levels = {"0": "普通会员", "1": "银卡", "2": "金卡", "3": "钻石"}
    assert sorted(got) == sorted((i, n, levels[str(lv)], v) for i, n, lv, v in want) and got


def test_a_dimension_of_another_table_or_a_filtered_one_is_no_attribute():
    assert planned("上个月每个客户的消费金额和收货城市").dimensions == ["customer"]  # the orders reach the delivery city
    assert planned("上个月金卡会员里每个客户的消费金额").dimensions == ["customer"]  # a filter, not shown
    assert planned("上个月各会员等级的销售额").dimensions == ["member_level"]  # no member to stand beside


def test_a_member_named_right_before_its_own_attribute_says_whose_it_is_not_a_split():
    assert planned("上个月按客户性别拆分订单量").dimensions == ["gender"]
    assert planned("Last month's paid orders split by customer gender").dimensions == ["gender"]
    assert planned("上个月按客户的会员等级看销售额").dimensions == ["member_level"]


def test_a_compound_of_a_member_and_a_kind_it_looks_up_is_that_kind():
    assert planned("Gross profit by product category last month").dimensions == ["category"]  # the products' category
    assert planned("last month's units sold by product brand").dimensions == ["brand"]
    assert planned("last month's units sold by product and brand").dimensions == ["product", "brand"]  # two, joined
    assert planned("上个月各商品的品类和销量").dimensions[0] == "product"  # each product's, not a compound
    assert planned("上个月各品牌商品的销量").dimensions == ["brand"]  # Chinese: each brand's products, by brand
