"""Words business users type for what the model names: abbreviations of a name's words (avg, qty), a count of a
dimension's members ("多少个买家") as the model's count of distinct keys, the rows a rate is of said as its scope,
a comparison's base that is no new window, and the newest rows listed with their amount. Pure functions on the
demo's bundled model, compiled SQL run on a real demo database; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground, unanswerable
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.phrasing import backs
from wenshu.semantic.plan import QueryPlan, Window
from wenshu.semantic.windows import followup_window

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, chosen: list[str]) -> QueryPlan | None:
    return ground(QueryPlan(measures=chosen), MODEL, question).plan


@pytest.mark.parametrize(("question", "measures"), [
    ("avg order value by channel this month", ["aov"]),
    ("qty sold per category last week", ["units_sold"]),
    ("avg ticket and avg order value", ["aov"]),  # two words of one ratio: one measure
])  # fmt: skip
def test_a_names_words_are_read_in_their_abbreviations(question, measures):
    assert read(MODEL, question).measures == measures


@pytest.mark.parametrize(("question", "chosen", "measures"), [
    ("上周每个渠道各有多少个买家？", ["gmv"], ["buyers"]),  # the model's choice is not said; the counted members are
    ("how many distinct shoppers did we have yesterday", ["pv"], ["buyers"]),
    ("本月新注册了多少用户", ["new_customers"], ["new_customers"]),  # the words back the model's choice
])  # fmt: skip
def test_a_count_of_a_dimensions_members_is_the_count_of_its_distinct_keys(question, chosen, measures):
    plan = grounded(question, chosen)
    assert plan is not None and plan.measures == measures


def test_no_count_of_keys_where_the_words_back_another_measure():
    question = "本月新注册了多少用户"  # most of 新注册客户 is said: not buyers, whatever the model chose
    assert unanswerable(MODEL, read(MODEL, question), question) is None
    assert grounded(question, ["gmv"]).measures == ["new_customers"]  # the one measure its words back
    assert grounded("How many customers are there?", ["pv"]) is None  # the customers table's own rows, not buyers


def test_a_count_of_members_by_a_dimension_runs_as_distinct_keys(demo_db_file):
    plan = grounded("各渠道分别有多少个买家", ["gmv"])
    assert plan is not None and (plan.measures, plan.dimensions) == (["buyers"], ["channel"])
    with sqlite3.connect(demo_db_file) as conn:
        got = dict(conn.execute(compile_plan(MODEL, plan).sql).fetchall())
        expected = dict(conn.execute("SELECT channel, COUNT(DISTINCT customer_id) FROM orders WHERE status = 1"
                                     " GROUP BY channel").fetchall())
    assert got == expected and len(got) > 1


def test_money_said_with_a_verb_and_function_characters_back_nothing():
    assert read(MODEL, "这个季度卖了多少钱").measures == ["gmv"]
    assert read(MODEL, "上周退了多少钱").measures == ["refund_amount"]
    assert not backs("卖了多少钱", "新注册了多少用户")  # 了多少 is no part of a name


@pytest.mark.parametrize(("question", "measures"), [
    ("the cancellation rate among orders placed in March", ["cancel_rate"]),
    ("what is the refund rate for this year's orders", ["refund_rate"]),
    ("refund rate and orders by month", ["refund_rate", "paid_orders"]),  # both asked: no preposition before orders
])  # fmt: skip
def test_the_rows_a_rate_is_of_are_its_scope_not_another_measure(question, measures):
    assert read(MODEL, question).measures == measures


@pytest.mark.parametrize(("question", "moves"), [
    ("and week over week, against the week before?", False),
    ("和前一周比呢", False),
    ("那前一周呢", True),
    ("and the week before?", True),
])  # fmt: skip
def test_the_period_a_comparison_is_against_is_no_new_window(question, moves):
    before = Window.model_validate({"start": "2026-03-09", "end": "2026-03-16"})
    got = followup_window(question, before, read(MODEL, question).compare)
    assert (got is not None and got.start.isoformat() == "2026-03-02") == moves
    assert moves or read(MODEL, question).compare != "none"


def test_the_newest_rows_listed_with_their_amount_come_newest_first(demo_db_file):
    plan = grounded("最近8笔退款，列出订单号、退款金额和退款时间", ["refund_amount"])
    assert plan is not None and (plan.records, plan.order_by, plan.order, plan.limit) == ("refund", "refund_time", "desc", 8)
    biggest = grounded("退款金额最大的8笔退款，列出订单号和退款金额", ["refund_amount"])
    assert biggest is not None and biggest.order_by == "refund_amount"
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan).sql).fetchall()
        newest = conn.execute("SELECT MAX(refund_time) FROM refunds").fetchone()[0]
    assert len(got) == 8 and newest in got[0]


def test_the_models_values_are_kept_only_as_values_the_question_names():
    question = "What's the average amount paid on app orders over 500 yuan last week?"
    filled = QueryPlan.model_validate({"measures": ["aov"], "filters": [
        {"dimension": "channel", "values": ["app"]}, {"dimension": "order_date", "values": ["last week"]},
        {"dimension": "member_level", "values": ["0"]}]})  # a date said as a value, a code found inside "500"
    plan = ground(filled, MODEL, question).plan
    assert plan is not None and {f.dimension for f in plan.filters} <= {"channel", "order_status", "orders.pay_amount"}
    question = "今年以来华东大区实付超过3000的订单有多少单"
    filled = QueryPlan.model_validate({"measures": ["paid_orders"], "filters": [{"dimension": "region", "values": ["华东大区"]}]})
    plan = ground(filled, MODEL, question).plan
    assert plan is not None and [f.values for f in plan.filters if f.dimension == "region"] == [["华东"]]


@pytest.mark.parametrize(("question", "measures"), [
    ("这周新客有多少人", ["new_customers"]),  # 人 is the unit of the count named: no second count of people
    ("每天多少新客，按天看", ["new_customers"]),  # 多少新客 asks 新客数
    ("上个月有多少订单被取消了", ["cancelled_orders"]),  # 订单 is the records' word: the values decide
    ("上周访客有多少人", ["uv"]),
    ("华东今年成交了多少钱", ["gmv"]),
])  # fmt: skip
def test_a_count_asked_by_its_stem_and_its_unit_is_the_count_named(question, measures):
    assert read(MODEL, question).measures == measures


def test_top_n_said_before_is_a_rank():
    m = read(MODEL, "前三是哪几个品类？")
    assert (m.rank, m.limit) == (True, 3)


def test_a_split_by_a_column_the_counts_filter_pins_counts_all_rows(demo_db_file):
    plan = grounded("how many orders by order status in March", ["paid_orders"])
    assert plan is not None and (plan.measures, plan.dimensions) == (["all_orders"], ["order_status"])
    assert grounded("各渠道订单量", ["paid_orders"]).measures == ["paid_orders"]  # the filter pins no channel
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan.model_copy(update={"window": None})).sql).fetchall()
    assert len(got) == 4  # paid, cancelled, refunded and pending, not paid alone


def test_values_asked_each_with_a_verb_split_by_them():
    plan = grounded("今年一线和二线城市各成交了多少钱", ["gmv"])
    assert plan is not None and plan.dimensions == ["city_tier"] and plan.filters[0].values == ["1", "3"]


@pytest.mark.parametrize("question", [
    "gross profit by category last month, in yuan and as a percentage of product sales",
    "上个月各品类毛利多少，占商品销售额的百分比是多少",
    "profit by category this quarter, in yuan and as a % of sales",  # sales of a category: product sales (`finer`)
])  # fmt: skip
def test_a_measure_as_a_percent_of_another_is_the_models_ratio(question):
    plan = grounded(question, ["gross_profit"])
    assert plan is not None and (plan.measures, plan.share, plan.dimensions) == (["gross_profit", "gross_margin"], False, ["category"])
    assert grounded("gross profit and product sales by category", ["gross_profit"]).measures == ["gross_profit", "item_sales"]


def test_a_names_words_said_apart_back_it(demo_db_file):
    question = "最近7天有多少个客户付款下过单？按人头算"  # 下单客户: 客户 and 下单 (said 下过单), apart
    assert backs("下单客户", question) and backs("付款客户", "哪些客户付了款")
    assert not backs("订单取消率", "上周取消的订单都列出来")  # a rate's 率 unsaid is no rate
    assert not backs("多少个下单", question)  # 多少 is no word of a name
    plan = grounded(question, ["paid_orders"])  # the model's choice is not said; the one measure said is
    assert plan is not None and plan.measures == ["buyers"]
    plan.window = Window(start="2026-11-01", end="2026-11-08")
    with sqlite3.connect(demo_db_file) as conn:
        (got,) = conn.execute(compile_plan(MODEL, plan).sql).fetchone()
        (expected,) = conn.execute("SELECT COUNT(DISTINCT customer_id) FROM orders WHERE status = 1 AND order_date"
                                   " >= '2026-11-01' AND order_date < '2026-11-08'").fetchone()
    assert got == expected > 0
