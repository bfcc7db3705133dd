"""A count asked of rows or units without naming a measure ("成交了多少单", "多少笔已支付订单", "取消的订单有
多少"): the semantic model's units and records say what is counted, the values named say which count; a
count measure said with a dimension's other word ("clients who bought" for customers who bought).
Pure functions on the demo's bundled model; the compiled count is checked against SQL written by hand on a
real demo database. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.counting import counted, own_filter
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import Measure, parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


@pytest.mark.parametrize(("question", "measure"), [
    ("这个月到现在一共卖出去多少单？", "paid_orders"),  # the unit 单: the default order count, declared first
    ("上周华南有多少笔已支付的订单", "paid_orders"),  # the rows counted: orders, though refunds count in 笔
    ("昨天付了款的订单有多少笔了？", "paid_orders"),
    ("本月被取消的订单一共有多少？", "cancelled_orders"),  # the value named is the measure's own filter
    ("上个月有几单被取消", "cancelled_orders"),
    ("上周已退款的订单有多少个", "refunded_orders"),
    ("上个月有多少笔退款", "refund_count"),  # a record named in the measure's words: named as before
])  # fmt: skip
def test_a_count_of_rows_or_units_names_the_count_measure_the_values_select(question, measure):
    assert read(MODEL, question).measures == [measure]


@pytest.mark.parametrize("question", [
    "上个月被取消的订单有哪些？",  # a list, not a count
    "上个月华东的订单金额是多少",  # how much, of an amount: no row count
    "一共有多少个城市",  # a count of a dimension's members, not of rows a record holds
    "what was the transaction total by region last month?",  # a total of rows is their money, not a count
])  # fmt: skip
def test_no_count_measure_where_the_question_counts_no_rows(question):
    assert read(MODEL, question).measures == []


def test_the_default_count_stands_against_the_plan_models_other_choice():
    question = "这个月到现在一共卖出去多少单？"
    assert read(MODEL, question).alternatives == {}
    got = ground(QueryPlan.model_validate({"measures": ["all_orders"]}), MODEL, question)  # no word of "orders placed"
    assert got.plan is not None and got.plan.measures == ["paid_orders"], got.reason
    cancelled = "本月被取消的订单一共有多少？"  # paid orders (status 1) can never count the cancelled ones
    at = cancelled.index("订单")
    assert counted(MODEL, cancelled, {"order_status": ["2"]}, {"order": [(at, at + 2)]}) == \
        ["cancelled_orders", "all_orders"]


@pytest.mark.parametrize(("filter_sql", "expected"), [
    (None, {}), ("status = 1", {"status": {"1"}}), ("status IN (1, 3)", {"status": {"1", "3"}}),
    ("(status = 1) AND channel = 'app'", {"status": {"1"}, "channel": {"app"}}),
    ("status = 1 OR status = 3", None), ("pay_amount > 0", None),
])  # fmt: skip
def test_a_measures_own_filter_is_read_as_values_kept_or_left_unknown(filter_sql, expected):
    assert own_filter(Measure(id="m", zh="m", en="m", table="orders", agg="count", filter=filter_sql)) == expected


def test_the_cancelled_count_compiles_to_the_cancelled_orders_of_the_window(demo_db_file):
    question = "上个月取消的订单有多少？"
    m = read(MODEL, question)
    with sqlite3.connect(demo_db_file) as conn:
        start, end = conn.execute("SELECT date('now', 'start of month', '-1 month'), date('now', 'start of month')").fetchone()
        got = ground(QueryPlan.model_validate({"measures": m.measures, "window": {"start": start, "end": end}}),
                     MODEL, question)
        assert got.plan is not None, got.reason
        expected = "SELECT COUNT(*) FROM orders WHERE status = 2 AND order_date >= ? AND order_date < ?"
        assert conn.execute(compile_plan(MODEL, got.plan).sql).fetchall()[0][-1] == \
            conn.execute(expected, (start, end)).fetchone()[0] > 0


def test_a_measure_named_with_a_dimensions_other_word_backs_the_models_choice():
    question = "how many distinct clients bought anything last week?"  # "client" is a word of the customer dimension
    got = ground(QueryPlan.model_validate({"measures": ["buyers"]}), MODEL, question)
    assert got.plan is not None and got.plan.measures == ["buyers"], got.reason
    assert read(MODEL, "上周下单会员数").measures == ["buyers"]  # 下单客户数, with 会员 for 客户


def test_a_name_that_is_no_more_than_a_dimension_is_not_said_in_its_other_words():
    from wenshu.semantic.variants import entry_words

    buyers = next(x for x in MODEL.measures if x.id == "buyers")
    words = entry_words(MODEL, buyers)
    assert "shoppers who bought" in words and "paying clients" in words
    assert "customers" not in words and "客户数" not in words  # from "buyers" / 买家数: the customers themselves


@pytest.mark.parametrize(("question", "measures"), [
    ("revenue and transaction count per region last month", ["gmv", "paid_orders"]),  # the count beside a measure
    ("上个月有多少单，销售额多少", ["paid_orders", "gmv"]),
    ("paid transactions this week versus last week", ["paid_orders"]),  # compared: the rows are counted
    ("how many orders and what GMV by channel", ["paid_orders", "gmv"]),  # a count named: no second one
])  # fmt: skip
def test_a_count_is_added_beside_the_measures_named_in_the_order_asked(question, measures):
    assert read(MODEL, question).measures == measures


def test_a_label_that_is_a_common_word_is_not_read_inside_each_other():
    m = read(MODEL, "app and web next to each other on revenue last month")
    assert "city_tier" not in m.values and m.values.get("channel") == ["app", "web"]


@pytest.mark.parametrize(("question", "filled", "measures"), [
    ("Returns by refund reason this month: how much money went back for each?", ["refund_count", "refund_amount"],
     ["refund_amount"]),  # the rows the money is asked of, not a count
    ("refund amount per refund reason, with each reason's share of all refunds", ["refund_amount", "refund_count"],
     ["refund_amount"]),  # the whole of the share
    ("how many refunds, and how much money went back, per refund reason", ["refund_count"],
     ["refund_count", "refund_amount"]),  # a count asked for stays, beside the money
    ("GMV and orders by region", ["gmv", "paid_orders"], ["gmv", "paid_orders"]),
])  # fmt: skip
def test_a_count_that_only_names_the_rows_money_is_asked_of_is_dropped(question, filled, measures):
    got = ground(QueryPlan.model_validate({"measures": filled}), MODEL, question)
    assert got.plan is not None and got.plan.measures == measures, got.reason


@pytest.mark.parametrize("measure, status, lang, header", [
    ("refunded_orders", "2", "zh", "取消订单数"),  # 退款订单有多少 -> 那已取消的呢: the count of cancelled orders
    ("refunded_orders", "2", "en", "cancelled orders"),
    ("paid_orders", "3", "zh", "退款订单数"),
    ("refunded_orders", "0", "zh", "退款订单数"),  # no measure counts pending orders: the name stays
    ("refunded_orders", "3", "zh", "退款订单数"),  # its own value
])
def test_a_count_whose_status_is_replaced_is_headed_by_the_measure_that_counts_it(demo_db_file, measure, status,
                                                                                  lang, header):
    plan = QueryPlan.model_validate({"measures": [measure], "filters": [{"dimension": "order_status", "values": [status]}]})
    compiled = compile_plan(MODEL, plan, "sqlite", lang)
    assert compiled.columns == [header]
    with sqlite3.connect(demo_db_file) as conn:
        assert conn.execute(compiled.sql).fetchone()[0] == \
            conn.execute("SELECT COUNT(*) FROM orders WHERE status = ?", (int(status),)).fetchone()[0]
