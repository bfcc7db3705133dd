"""Detail lists that show the fields a question names and take bounds on a row's value
(`semantic.fields`), and the reading rules around them: two values set side by side split, the thing a
count counts is no split, a period word inside a measure's name is a grain. Pure functions on the
demo's bundled model, compiled SQL run on a real demo database; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, filled: dict | None = None):
    got = ground(QueryPlan.model_validate(filled or {"measures": ["pv"]}), MODEL, question)
    return got.plan, got.reason


@pytest.mark.parametrize(("text", "op", "value"), [
    ("退款金额超过2000元的", "gt", 2000), ("3千元以上的订单", "gte", 3000), ("orders over 12,500 yuan", "gt", 12500),
    ("at least 5 units", "gte", 5), ("不足100件", "lt", 100), ("below 1.5万", "lt", 15000), ("2000 or more", "gte", 2000),
])  # fmt: skip
def test_bounds_are_read_with_their_operator_and_scale(text, op, value):
    (t,) = thresholds(text)
    assert (t.op, t.value) == (op, value)


def test_no_bound_in_windows_ranks_or_plain_numbers():
    assert thresholds("最近30天销量前5的商品") == [] and thresholds("top 3 cities in the last 90 days") == []
    assert thresholds("sales over 7 days by channel") == [] and thresholds("超过3个月没下单") == []


def test_a_list_shows_the_fields_named_bounded_by_the_value_before_the_bound(demo_db_file):
    plan, _ = grounded("把上周退款额高于800元的退款记录列出来：订单号、退款原因、退款金额")
    assert plan.records == "refund" and plan.columns == ["order_id", "refund_reason", "refund_amount"]
    assert {"dimension": "refund_amount", "op": "gt", "values": [800]} in [f.model_dump() for f in plan.filters]
    compiled = compile_plan(MODEL, plan, "sqlite", "zh")
    assert compiled.columns == ["订单号", "退款原因", "退款金额"]
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compiled.sql).fetchall()
    assert rows and all(r[2] > 800 for r in rows)


def test_an_unnamed_bound_falls_on_the_records_own_value_and_a_value_filters_it():
    plan, _ = grounded("Pull the paid app orders above 5,000 yuan with order number, customer name and amount paid")
    assert plan.records == "order" and plan.columns == ["order_id", "customer", "pay_amount"]
    bounds = {f.dimension: (f.op, f.values) for f in plan.filters}
    assert bounds["pay_amount"] == ("gt", [5000]) and bounds["channel"] == ("in", ["app"])
    sql = compile_plan(MODEL, plan, "sqlite", "en").sql
    assert '"orders"."pay_amount" > 5000' in sql and '"orders"."status" IN (\'1\')' in sql


def test_rows_with_their_attributes_lead_with_the_rows_name_and_a_values_kind_is_no_field():
    plan, _ = grounded("the products in the home appliances category with their brand and list price")
    assert plan.records == "products" and plan.columns == ["product_name", "brand", "unit_price"]
    assert [f.dimension for f in plan.filters] == ["category"]


def test_order_lines_are_their_own_rows_bounded_by_their_quantity():
    plan, _ = grounded("this week's order lines with 3 or more units: order id, product name and quantity")
    assert plan.records == "order_line" and plan.columns == ["order_id", "product", "quantity"]
    assert [f.model_dump() for f in plan.filters] == [{"dimension": "quantity", "op": "gte", "values": [3]}]


@pytest.mark.parametrize(("question", "measure", "part"), [
    ("web versus mini program conversion rate last week", "aov", {"dimensions": ["channel"]}),  # one of the twins
    ("这个月新注册了多少位用户", "new_customers", {"measures": ["new_customers"], "dimensions": []}),
    ("Monthly average order value this year", "aov", {"measures": ["aov"], "grain": "month", "per": None}),
    ("How did AOV compare with the same period last month?", "aov", {"compare": "previous"}),
    ("how many different customers had a paid order this week", "paid_orders", {"measures": ["buyers"]}),
    ("本周有多少个客户下过已支付订单", "paid_orders", {"measures": ["buyers"], "dimensions": []}),
    ("Which 4 brands sold the most units last week?", "units_sold", {"dimensions": ["brand"], "limit": 4}),
    ("去年四个季度的销量各是多少", "units_sold", {"grain": "quarter"}),
    ("What East China city had the highest GMV", "gmv", {"dimensions": ["city"], "limit": 1}),
    ("前一个月的GMV是多少", "gmv", {"limit": None, "order": None}),
    ("What channels brought the most GMV last week", "gmv", {"dimensions": ["channel"], "limit": None}),  # plural: all
    ("GMV this month against the month before", "gmv", {"compare": "previous"}),
    ("最近7天各渠道的访客数各占多少", "uv", {"share": True, "dimensions": ["channel"]}),  # compiled on the traffic's
    ("the 2 categories with the thinnest gross margin", "gross_margin", {"order": "asc", "limit": 2}),
    ("new signups by channel", "aov", {"measures": ["new_customers"], "dimensions": ["channel"]}),
])  # fmt: skip
def test_reading_rules(question, measure, part):
    plan, reason = grounded(question, {"measures": [measure], "dimensions": ["customer"]})
    got = plan.model_dump()
    assert plan is not None, reason
    assert {k: got[k] for k in part} == part


def test_members_that_share_a_name_stay_apart(demo_db_file):
    """Customers are grouped by their id and shown by their id and name: two customers called the same are two
    rows a reader tells apart."""
    compiled = compile_plan(MODEL, QueryPlan(measures=["paid_orders"], dimensions=["customer"]), "sqlite", "zh")
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compiled.sql).fetchall()
        buyers = conn.execute("SELECT COUNT(DISTINCT customer_id) FROM orders WHERE status = 1").fetchone()[0]
        names = conn.execute("SELECT COUNT(DISTINCT c.customer_name) FROM orders o JOIN customers c "
                             "ON c.customer_id = o.customer_id WHERE o.status = 1").fetchone()[0]
    assert len(rows) == buyers > names  # namesakes exist, and none is merged
    assert compiled.columns == ["客户ID", "客户", "订单量"] and all(isinstance(r[1], str) for r in rows)
    assert len({r[0] for r in rows}) == len(rows)  # the ids tell the namesakes apart


def test_a_list_ranked_by_a_measures_row_value_shows_that_amount_in_place_of_its_own(demo_db_file):
    plan = QueryPlan.model_validate({"records": "order", "filters": [{"dimension": "order_status", "values": ["1"]}],
                                     "order": "desc", "order_by": "gmv", "limit": 5})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    order = next(r for r in MODEL.records if r.id == "order")
    assert len(compiled.columns) == len(order.columns)  # one amount: the one the rows are ranked by
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compiled.sql).fetchall()
        top = [r[0] for r in conn.execute("SELECT pay_amount FROM orders WHERE status = 1 ORDER BY pay_amount DESC"
                                          " LIMIT 5")]
    assert [r[order.columns.index(order.value)] for r in rows] == top
    named = compile_plan(MODEL, plan.model_copy(update={"columns": ["order_id", "city"]}), "sqlite", "en")
    assert len(named.columns) == 3  # the fields named, then the amount ranked by


def test_a_list_of_default_columns_leaves_out_a_dimension_filtered_to_one_value(demo_db_file):
    one = QueryPlan.model_validate({"records": "order", "filters": [{"dimension": "city", "values": ["深圳"]}]})
    two = QueryPlan.model_validate({"records": "order", "filters": [{"dimension": "city", "values": ["深圳", "广州"]}]})
    named = one.model_copy(update={"columns": ["order_id", "city"]})
    shown = {p: compile_plan(MODEL, plan, "sqlite", "en").columns for p, plan in (("one", one), ("two", two),
                                                                                 ("named", named))}
    assert "city" not in shown["one"] and "city" in shown["two"]  # every row's city is 深圳; two cities tell apart
    assert shown["named"][-1] == "city"  # a field the question names is shown whatever it is filtered to
    with sqlite3.connect(demo_db_file) as conn:
        assert conn.execute(compile_plan(MODEL, one, "sqlite", "en").sql).fetchall()


@pytest.mark.parametrize(("question", "added"), [
    ("refunds over 3,000 yuan this week, with the refund reason and the delivery city", ["city"]),
    ("本周的退款逐笔列出来，带上客户姓名", ["customer"]),
])  # fmt: skip
def test_fields_said_with_a_word_that_adds_them_join_the_records_own_columns(question, added, demo_db_file):
    plan, reason = grounded(question, {"measures": ["refund_count"]})
    refund = next(r for r in MODEL.records if r.id == "refund")
    assert plan is not None and plan.records == "refund", reason
    assert plan.columns == [*refund.columns, *added]
    compiled = compile_plan(MODEL, plan)
    with sqlite3.connect(demo_db_file) as conn:
        assert len(conn.execute(compiled.sql).fetchall()[0]) == len(compiled.columns) == len(refund.columns) + len(added)


def test_fields_that_name_the_records_first_column_are_every_column_shown():
    plan, _ = grounded("the 5 latest refunds, with order id, refund amount and delivery city", {"measures": ["refund_count"]})
    assert plan.columns == ["order_id", "refund_amount", "city"]
