"""Which rows a detail list shows and how a follow-up edits it: the record its fields name, the head of two records,
a field word that names the rows' customer, an order phrase after 按<time field>, a bound a cheapest-first list sorts
by, the rows a count on a looked-up table keeps; follow-ups that add or drop a column or name other rows of the
same answer; a status named in the question in place of a measure's default. Pure functions on the demo's bundled
model; compiled SQL run on a real demo database. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


def listed(question: str, filled: dict | None = None, hits: list[dict] | None = None) -> QueryPlan:
    plan = ground(QueryPlan.model_validate(filled or {"measures": ["pv"]}), MODEL, question, hits).plan
    assert plan is not None
    return plan


def followed(previous: dict, question: str) -> QueryPlan | None:
    return edit(QueryPlan.model_validate(previous), read(MODEL, question), None, question, MODEL)


def test_the_fields_a_question_names_choose_the_record_it_lists():
    plan = listed("本月注册的金卡会员有哪些人，要姓名、手机号和注册日期")
    assert plan.records == "customers" and plan.columns == ["customer_name", "phone", "register_date"]
    assert [(f.dimension, f.values) for f in plan.filters] == [("member_level", ["2"])]


def test_of_two_records_named_the_one_whose_fields_are_asked_is_listed():
    shanghai = [{"table": "cities", "column": "city_name", "value": "上海"}]  # the value index's hit
    plan = listed("发往上海的那些订单的退款记录：退款时间、退款金额、退款原因", hits=shanghai)
    assert plan.records == "refund" and plan.columns == ["refund_time", "refund_amount", "refund_reason"]
    assert [(f.dimension, f.values) for f in plan.filters] == [("city", ["上海"])]


def test_a_customer_name_asked_of_orders_is_a_field_of_the_orders():
    plan = listed("the 3 largest paid orders yesterday, with customer name and channel")  # with: added to the order's own
    order = next(r for r in MODEL.records if r.id == "order")
    assert plan.records == "order" and plan.columns == [*order.columns, "customer"] and plan.limit == 3
    plan = listed("the 3 largest paid orders yesterday: order id, customer name and channel")
    assert plan.columns == ["order_id", "customer", "channel"]


def test_by_a_time_field_from_new_to_old_sorts_the_list_and_splits_nothing():
    plan = listed("上周实付超过3000的订单，订单号、客户姓名、实付金额，按下单时间从旧到新")
    assert plan.records == "order" and not plan.dimensions
    assert (plan.order_by, plan.order) == ("order_date", "asc")  # by day, then by time (detail.py)
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("pay_amount", "gt", [3000])]


def test_a_cheapest_first_list_sorts_by_the_price_it_bounds_and_keeps_every_row():
    plan = listed("Which home appliance products are priced under 500 yuan? name and price, cheapest first")
    assert plan.records == "products" and plan.limit is None
    assert (plan.order_by, plan.order) == ("unit_price", "asc")


def test_records_named_with_nothing_measured_are_listed():
    plan = listed("上周华东区的退款记录")
    assert plan.records == "refund" and [(f.dimension, f.values) for f in plan.filters] == [("region", ["华东"])]


def test_a_count_said_of_the_orders_a_line_belongs_to_keeps_those_orders_lines(demo_db_file):
    plan = listed("line items from refunded orders placed last month: order id, product, quantity")
    assert plan.records == "order_line" and plan.columns == ["order_id", "product", "quantity"]
    assert [(f.dimension, f.values) for f in plan.filters] == [("order_status", ["3"])]
    sql = compile_plan(MODEL, plan.model_copy(update={"window": None}), "sqlite", "en").sql
    got = sqlite3.connect(demo_db_file).execute(sql).fetchall()
    want = sqlite3.connect(demo_db_file).execute(
        "SELECT COUNT(*) FROM order_items i JOIN orders o ON o.order_id = i.order_id WHERE o.status = 3").fetchone()[0]
    assert len(got) == want > 0


def test_a_follow_up_drops_or_adds_a_column_of_the_list():
    refunds = {"records": "refund", "columns": ["refund_time", "order_id", "refund_amount", "refund_reason"]}
    assert followed(refunds, "退款原因那列不要了").columns == ["refund_time", "order_id", "refund_amount"]
    lines = {"records": "order_line", "columns": ["order_id", "product", "quantity"]}
    added = followed(lines, "please also add the city those orders were shipped to")
    assert added.columns == ["order_id", "product", "quantity", "city"] and added.records == "order_line"
    assert not added.dimensions and not added.measures
    orders = {"records": "order"}  # the record's default columns, then one more
    assert followed(orders, "再加上手机号").columns == [*next(r for r in MODEL.records if r.id == "order").columns,
                                                         "customers.phone"]


def test_a_follow_up_naming_other_rows_of_the_same_answer_swaps_the_value():
    before = {"measures": ["paid_orders", "order_value"], "filters": [{"dimension": "order_status", "values": ["2"]}]}
    after = followed(before, "what about the refunded orders?")
    assert after.measures == ["paid_orders", "order_value"]
    assert [(f.dimension, f.values) for f in after.filters] == [("order_status", ["3"])]


def test_a_status_the_question_names_replaces_the_measures_default(demo_db_file):
    plan = QueryPlan.model_validate({"measures": ["paid_orders", "order_value"],
                                     "filters": [{"dimension": "order_status", "values": ["0"]}]})
    sql = compile_plan(MODEL, plan, "sqlite", "zh").sql
    got = sqlite3.connect(demo_db_file).execute(sql).fetchall()
    want = sqlite3.connect(demo_db_file).execute(
        "SELECT COUNT(*), ROUND(SUM(total_amount), 2) FROM orders WHERE status = 0").fetchall()
    assert got == want and want[0][0] > 0
    paid = compile_plan(MODEL, QueryPlan(measures=["order_value"]), "sqlite", "zh").sql
    assert sqlite3.connect(demo_db_file).execute(paid).fetchone()[0] == sqlite3.connect(demo_db_file).execute(
        "SELECT ROUND(SUM(total_amount), 2) FROM orders WHERE status = 1").fetchone()[0]


def test_a_time_phrase_the_model_writes_as_a_value_is_no_member():
    plan = ground(QueryPlan.model_validate({"measures": ["paid_orders"], "dimensions": ["region"],
                                            "filters": [{"dimension": "region", "values": ["昨天"]}]}),
                  MODEL, "昨天各个大区的订单各有几单").plan
    assert plan.filters == [] and plan.dimensions == ["region"]


def test_an_average_of_the_amount_paid_on_named_orders_is_the_order_value_average():
    plan = listed("Average amount paid on South China orders last month?", {"measures": ["gmv"]})
    assert plan.measures == ["aov"] and [(f.dimension, f.values) for f in plan.filters] == [("region", ["华南"])]


def test_of_the_models_choices_the_one_the_words_back_stays():
    question = "上个月用户新注册了多少"  # "用户 … 新注册" says most of 新注册客户 / 注册用户数, and 注册 what 注册日期 dates
    assert read(MODEL, question).measures == ["new_customers"]
    for chosen in (["new_customers"], ["new_customers", "gmv"], ["gmv", "new_customers"]):
        plan = ground(QueryPlan(measures=chosen), MODEL, question).plan
        assert plan is not None and plan.measures == ["new_customers"]


@pytest.mark.parametrize(("question", "measures", "filters"), [
    ("上个月新注册的用户有多少", ["new_customers"], []),  # 新注册用户: the act, 的, the noun counted
    ("这周下单的会员有多少", ["buyers"], []),
    ("上个月购买了家用电器的客户数", ["buyers"], [("category", ["家用电器"])]),  # what was bought between them
    ("本月有多少用户购买了运动户外", ["buyers"], [("category", ["运动户外"])]),  # the noun counted, then the act
    ("昨天有多少位会员通过小程序消费了", ["buyers"], [("channel", ["mini_program"])]),  # 消费客户数; words between
    ("本周有多少个人在App上付了钱", ["buyers"], [("channel", ["app"])]),  # 多少个人: how many people
])  # fmt: skip
def test_a_count_named_by_its_act_and_noun_apart_is_that_count(question, measures, filters):
    plan = ground(QueryPlan(measures=["gmv"]), MODEL, question).plan
    assert (plan.measures, plan.dimensions) == (measures, [])
    assert [(f.dimension, f.values) for f in plan.filters] == filters


def test_sorted_by_a_time_field_lists_in_that_order_and_splits_nothing():
    plan = listed("Refunds from last week, reason damaged items: refund id, refund amount and refund date, sorted by refund date")
    assert plan.records == "refund" and not plan.dimensions
    assert plan.columns == ["refund_id", "refund_amount", "refund_date"]  # where the date is shown, not where it sorts
    assert plan.order == "asc"
    newest = listed("上个月的已取消订单，列出订单号、渠道和下单时间，按下单时间排序，倒序")
    assert newest.records == "order" and newest.order == "desc" and not newest.dimensions


def test_three_fields_of_one_record_make_a_list_though_a_measure_is_named():
    plan = listed("本周因为物流太慢退的款，按退款金额从高到低，要退款单号、退款日期和退款金额")
    assert plan.records == "refund" and plan.columns == ["refund_id", "refund_date", "refund_amount"]
    assert (plan.order_by, plan.order) == ("refund_amount", "desc")


def test_a_field_word_is_no_count_and_a_ranked_list_of_three_fields_is_a_list():
    plan = listed("Unpaid orders from this month, biggest order total first: order id, channel and order time")
    assert plan.records == "order" and set(plan.columns) == {"total_amount", "order_id", "channel", "order_time"}
    assert plan.order == "desc" and [(f.dimension, f.values) for f in plan.filters] == [("order_status", ["0"])]


def test_a_bare_count_in_a_follow_up_keeps_the_rows_the_previous_answer_counted():
    previous = {"measures": ["refunded_orders"], "filters": [{"dimension": "city", "values": ["上海"]},
                                                             {"dimension": "order_status", "values": ["3"]}]}
    plan = followed(previous, "再按渠道拆开，各有几单")
    assert plan.dimensions == ["channel"]
    assert [(f.dimension, f.values) for f in plan.filters] == [("city", ["上海"]), ("order_status", ["3"])]


def test_a_time_order_sorts_by_the_records_time_then_its_own_order(demo_db_file):
    plan = listed("Who joined from 成都 in the last 30 days? id, name and sign-up date, oldest sign-up first",
                  hits=[{"table": "cities", "column": "city_name", "value": "成都"}])
    assert plan.records == "customers" and plan.columns == ["customer_id", "customer_name", "register_date"]
    sql = compile_plan(MODEL, plan, "sqlite", "en").sql
    assert " ".join(sql.split()).endswith('ORDER BY "customers"."register_date" ASC, "customers"."customer_id" ASC')
    rows = sqlite3.connect(demo_db_file).execute(sql).fetchall()
    assert rows == sorted(rows, key=lambda r: (r[2], r[0]))


def test_three_fields_said_with_a_records_own_word_choose_it_over_the_record_named():
    plan = listed("本月发往华北的订单里退了款的，按退款金额从高到低，要订单号、退款时间和退款金额")
    assert plan.records == "refund" and plan.columns == ["order_id", "refund_time", "refund_amount"]
    plain = listed("昨天取消的订单，按时间倒序，要订单号和下单时间")  # 时间 alone says no refund
    assert plain.records == "order"


def test_a_time_order_with_words_between_is_still_a_time_order():
    plan = listed("refunds over 500 yuan on app orders this week, latest refund first - order id, amount, reason")
    assert plan.records == "refund" and (plan.order_by, plan.order) == ("refund_date", "desc")


def test_the_month_before_a_list_moves_its_window_and_compares_nothing():
    from wenshu.semantic.windows import followup_window, plan_window

    first = "上个月发往华北的订单里退了款的，按退款金额从高到低列出来，要订单号、退款时间和退款金额"
    previous = listed(first).model_copy(update={"window": plan_window(first)})
    question = "那再往前一个月的呢"
    m = read(MODEL, question)
    plan = edit(previous, m, followup_window(question, previous.window, m.compare), question, MODEL)
    assert plan.records == "refund" and plan.compare == "none" and plan.window == previous.window.shifted("previous")


@pytest.mark.parametrize(("question", "order_by", "order", "limit", "shown"), [
    ("标价最高的8个商品", "unit_price", "desc", 8, True),  # one field ranks a record that has no value of its own
    ("成本最低的四个商品", "cost_price", "asc", 4, False),  # and a field the list does not show is added to it
])  # fmt: skip
def test_one_field_ranks_rows_of_a_record_without_a_value_of_its_own(question, order_by, order, limit, shown):
    plan = listed(question)
    assert (plan.records, plan.order_by, plan.order, plan.limit) == ("products", order_by, order, limit)
    assert (plan.columns == []) == shown and (shown or plan.columns[-1] == order_by)


def test_a_list_of_a_value_names_the_record_whose_column_holds_it():
    plan = listed("这个月注册的银卡会员名单")  # 银卡会员: a level, which only the customers' rows hold
    assert plan.records == "customers" and [(f.dimension, f.values) for f in plan.filters] == [("member_level", ["1"])]
    assert plan.measures == []


def test_a_list_of_customers_picked_by_their_orders_goes_to_free_sql():
    got = ground(QueryPlan(measures=["pv"]), MODEL, "这周下过单的客户有哪些")  # by their orders, not their sign-up
    assert got.plan is None and "picked by rows of orders" in got.reason
    assert listed("这周注册的客户有哪些").records == "customers"  # their own date: listed
