"""Routes (`semantic.routes`): a dimension reached through the lookup the question names where two lead into its
table. The demo's orders reach `cities` by their delivery city; "customers who live in …", 家住, 所在城市 and
"by customer city" are the customers' own city (customers.city_id). Read from the question's words on the demo's
bundled model, compiled and run on a real demo database against SQL written here. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, edited, planned
from wenshu.agent.plan_answer import PlanView
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.schema import plan_schema


def rows(db, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


@pytest.mark.parametrize(("question", "via"), [
    ("上个月家住一线城市的客户一共花了多少钱", ["customers.city_id"]),
    ("last month's GMV from customers who live in new first-tier cities", ["customers.city_id"]),
    ("last month's sales by customer city", ["customers.city_id"]),  # the customers' city, said as a compound
    ("上个月一线城市的销售额", []),  # the orders' own city: the delivery city
    ("last month's sales by product category", []),  # one way only from the products: nothing to choose
])  # fmt: skip
def test_the_question_names_the_lookup_a_dimension_is_reached_by(question, via):
    assert planned(question).via == via


def test_a_routed_total_is_summed_over_the_customers_own_city(demo_db_file):
    plan = planned("上个月家住一线城市的客户一共花了多少钱")
    start, end = plan.window.start.isoformat(), plan.window.end.isoformat()
    own = rows(demo_db_file, """SELECT ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN customers c ON c.customer_id =
        o.customer_id JOIN cities ci ON ci.city_id = c.city_id WHERE o.status = 1 AND ci.city_tier = 1
        AND o.order_date >= ? AND o.order_date < ?""", start, end)
    delivered = rows(demo_db_file, """SELECT ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN cities ci ON ci.city_id =
        o.city_id WHERE o.status = 1 AND ci.city_tier = 1 AND o.order_date >= ? AND o.order_date < ?""", start, end)
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == own != delivered


def test_a_routed_split_reaches_the_region_through_the_same_city(demo_db_file):
    plan = planned("last month's GMV by the region customers live in")
    assert plan.dimensions == ["region"] and plan.via == ["customers.city_id"]
    start, end = plan.window.start.isoformat(), plan.window.end.isoformat()
    want = rows(demo_db_file, """SELECT r.region_name, ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN customers c
        ON c.customer_id = o.customer_id JOIN cities ci ON ci.city_id = c.city_id JOIN regions r
        ON r.region_id = ci.region_id WHERE o.status = 1 AND o.order_date >= ? AND o.order_date < ?
        GROUP BY r.region_name""", start, end)
    assert sorted(rows(demo_db_file, compile_plan(MODEL, plan, lang="en").sql)) == sorted(want)


def test_the_customers_own_city_shown_beside_each_customer_is_one_per_customer():
    plan = planned("上季度花了一万块以上的客户有谁？带上所在城市")
    assert plan.dimensions == ["customer", "city"] and plan.via == ["customers.city_id"]


def test_a_follow_up_adds_the_route_and_the_plan_model_never_fills_it():
    after = edited(planned("last month's GMV by channel").model_dump(), "only the ones who live in first-tier cities")
    assert after.via == ["customers.city_id"] and [f.values for f in after.filters] == [["1"]]
    assert "via" not in plan_schema(MODEL)["properties"]


def test_a_compound_said_once_routes_even_when_the_member_is_named_again():
    plan = planned("Top 3 customer cities by paid orders last month, going by the customer's own profile")
    assert plan.dimensions == ["city"] and plan.via == ["customers.city_id"] and plan.limit == 3


def test_the_answer_says_whose_city_it_counted(demo_db_file):
    plan = planned("上个月家住一线城市的客户一共花了多少钱")
    compiled = compile_plan(MODEL, plan)
    text = PlanView(MODEL, plan, "zh").explain(compiled.columns, [list(r) for r in rows(demo_db_file, compiled.sql)])
    assert "城市等级=一线" in text and "按客户的城市" in text
    en = planned("last month's GMV from customers who live in first-tier cities")
    assert "by the customer's city" in PlanView(MODEL, en, "en").explain(["GMV"], [[1.0]])
