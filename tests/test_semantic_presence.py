"""Members kept by whether they have rows ("这个月还一单都没下的客户", "how many have already made a purchase"): the
clause is read apart from the rest of the question, compiled to a subquery on the rows' own table, and the counts
agree with the same sets built in Python from the real demo database. The questions are written here."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, timedelta

import pytest

from demo_reading import MODEL
from wenshu.agent.plan_answer import PlanView
from wenshu.contracts import AgentRequest
from wenshu.semantic.compile import PlanNotCompilable, compile_plan
from wenshu.semantic.plan import EARLIEST, QueryPlan, Window
from wenshu.semantic.presence import said_presence
from wenshu.semantic.windows import plan_window


def paid_customers(db, window: Window | None = None) -> set[int]:
    sql, args = "SELECT DISTINCT customer_id FROM orders WHERE status = 1", ()
    if window is not None:
        sql, args = sql + " AND order_date >= ? AND order_date < ?", (window.start.isoformat(), window.end.isoformat())
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute(sql, args)}


def test_last_months_buyers_with_no_order_so_far_this_month_are_one_set_less_another(plan_agent, fake_model,
                                                                                      demo_db_file):
    fake_model.queue(json.dumps({"measures": ["buyers"]}))
    resp = plan_agent.ask(AgentRequest(message="上个月买过东西、这个月到今天还一单都没下的客户有几个"))
    assert resp.error is None, resp.error
    plan = QueryPlan.model_validate(resp.plan["plan"])
    today = date.today()
    this_month = Window(start=today.replace(day=1), end=today + timedelta(days=1))
    assert plan.measures == ["buyers"] and plan.window == Window(
        start=(today.replace(day=1) - timedelta(days=1)).replace(day=1), end=today.replace(day=1))
    assert [(p.measure, p.has, p.window) for p in plan.presence] == [("paid_orders", False, this_month)]
    want = paid_customers(demo_db_file, plan.window) - paid_customers(demo_db_file, this_month)
    assert [list(r) for r in resp.rows] == [[len(want)]] and len(want) > 100
    assert "订单量 = 0（" in resp.answer
    chip = next(c for c in resp.plan["chips"] if c["id"] == "paid_orders")
    assert chip["kind"] == "filter" and "presence" not in chip["remove"]


def test_customers_signed_up_lately_who_already_bought_are_the_new_ones_with_a_paid_order(demo_db_file):
    said = said_presence(MODEL, "Among customers who registered in the past three weeks, how many have already made a purchase?")
    assert [(p.measure, p.has, p.window) for p in said.presence] == [("paid_orders", True, None)]
    assert "made a purchase" not in said.rest and said.counted == "new_customers"
    window = plan_window(said.rest)
    plan = QueryPlan(measures=["new_customers"], window=window, presence=said.presence)
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()
        joined = {r[0] for r in conn.execute("SELECT customer_id FROM customers WHERE register_date >= ? AND "
                                             "register_date < ?", (window.start.isoformat(), window.end.isoformat()))}
    assert got == [(len(joined & paid_customers(demo_db_file)),)] and 0 < got[0][0] < len(joined)


def test_a_clause_of_no_orders_takes_the_period_said_right_before_or_after_it():
    zh = said_presence(MODEL, "最近14天一单都没下过的客户有多少")
    en = said_presence(MODEL, "How many customers have not placed a single order in the last 14 days?")
    assert zh.presence == en.presence and zh.presence[0].window == plan_window("最近14天")
    assert zh.counted == en.counted == "new_customers" and "14" not in en.rest


@pytest.mark.parametrize("question", [
    "昨天下了单但还没付款的订单有多少",  # a status of the orders themselves: no members named
    "上个月各城市的订单量有多少",
    "把昨天还没付款的订单列一下",  # a list of the orders themselves
    "昨天还没付款的订单有哪些，带上客户姓名",  # a state of the orders, though customers are named
    "这个月还没下过单的客户怎么样",  # neither counted nor listed
    "上个月销售额没有下降的城市有哪些",  # 下降 is no order placed
])  # fmt: skip
def test_no_members_kept_by_rows_where_none_are_counted_or_listed(question):
    assert said_presence(MODEL, question) is None


def test_before_a_period_is_everything_up_to_its_start_and_said_so():
    window = plan_window("How many customers who signed up before this year?")
    assert window == Window(start=EARLIEST, end=date(date.today().year, 1, 1))
    plan = QueryPlan(measures=["new_customers"], window=window)
    assert PlanView(MODEL, plan, "zh").window_text() == f"{date.today().year}-01-01 之前"


def test_members_by_rows_need_a_count_of_members_or_a_list_of_them(demo_db_file):
    with pytest.raises(PlanNotCompilable):
        compile_plan(MODEL, QueryPlan(measures=["gmv"], presence=[{"measure": "paid_orders"}]))
    refunded = compile_plan(MODEL, QueryPlan(records="order", presence=[{"measure": "refund_count", "has": True}]))
    with sqlite3.connect(demo_db_file) as conn:
        listed = {r[0] for r in conn.execute(refunded.sql)}
        assert listed == {r[0] for r in conn.execute("SELECT DISTINCT order_id FROM refunds")}


def test_first_time_buyers_of_a_month_had_no_paid_order_before_it(demo_db_file):
    for question in ("上个月第一次下单的客户有多少", "How many customers placed their very first paid order last month?"):
        said = said_presence(MODEL, question)
        assert [(p.measure, p.has, p.before) for p in said.presence] == [("paid_orders", False, True)], question
        assert said.counted == "buyers", question
    window = plan_window("上个月")
    plan = QueryPlan(measures=["buyers"], window=window, presence=said.presence)
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()
    earlier = paid_customers(demo_db_file, Window(start=EARLIEST, end=window.start))
    assert got == [(len(paid_customers(demo_db_file, window) - earlier),)] and got[0][0] > 0
    assert PlanView(MODEL, plan, "zh").had(plan.presence[0]) == f"订单量 = 0（{window.start.isoformat()} 之前）"


def test_a_list_of_members_with_no_order_this_month_is_their_records_with_no_model_call(plan_agent, fake_model,
                                                                                     demo_db_file):
    resp = plan_agent.ask(AgentRequest(message="这个月到今天还没下过单的钻石会员有哪些"))
    assert resp.error is None, resp.error
    plan = QueryPlan.model_validate(resp.plan["plan"])
    assert plan.records == "customers" and [(p.measure, p.has) for p in plan.presence] == [("paid_orders", False)]
    assert not fake_model.calls and resp.sql.count("EXISTS") == 1
    today = date.today()
    with sqlite3.connect(demo_db_file) as conn:
        diamond = {r[0] for r in conn.execute("SELECT customer_id FROM customers WHERE member_level = 3")}
    want = diamond - paid_customers(demo_db_file, Window(start=today.replace(day=1), end=today + timedelta(days=1)))
    with sqlite3.connect(demo_db_file) as conn:
        whole = resp.sql.rsplit(" LIMIT ", 1)[0]  # the list as asked, before the answer's row cap
        assert len(conn.execute(whole).fetchall()) == len(want) and 0 < len(want) < len(diamond)
    assert len(resp.rows) == min(len(want), 1000)


def test_a_follow_up_keeps_the_earlier_members_by_their_rows_with_no_model_call(plan_agent, fake_model, demo_db_file):
    fake_model.queue(json.dumps({"measures": ["buyers"]}))
    first = plan_agent.ask(AgentRequest(message="上个月下单的客户有多少"))
    assert first.error is None and first.plan["plan"]["measures"] == ["buyers"]
    calls = len(fake_model.calls)
    resp = plan_agent.ask(AgentRequest(message="其中这个月到今天还一单都没下的有多少", conversation_id=first.conversation_id))
    assert resp.error is None, resp.error
    assert len(fake_model.calls) == calls  # no model call: the earlier plan, kept by rows
    plan = QueryPlan.model_validate(resp.plan["plan"])
    assert plan.window == QueryPlan.model_validate(first.plan["plan"]).window and len(plan.presence) == 1
    today = date.today()
    want = paid_customers(demo_db_file, plan.window) - paid_customers(
        demo_db_file, Window(start=today.replace(day=1), end=today + timedelta(days=1)))
    assert [list(r) for r in resp.rows] == [[len(want)]]
    swapped = plan_agent.ask(AgentRequest(message="换成看订单量", conversation_id=first.conversation_id))
    assert swapped.plan["plan"]["measures"] == ["paid_orders"] and not swapped.plan["plan"].get("presence")
    orders = plan_agent.ask(AgentRequest(message="上个月的订单量"))
    unpaid = plan_agent.ask(AgentRequest(message="只看还没付款的", conversation_id=orders.conversation_id))
    assert not (unpaid.plan or {}).get("plan", {}).get("presence")  # a state of the orders themselves


def test_products_that_sold_nothing_are_listed_by_the_rows_of_units_sold(demo_db_file):
    said = said_presence(MODEL, "昨天一件都没卖出去的商品有哪些")
    assert [(p.measure, p.has, p.window) for p in said.presence] == [("units_sold", False, plan_window("昨天"))]
    assert said_presence(MODEL, "Which products have not sold yesterday?").presence == said.presence
    plan = QueryPlan(records="products", presence=said.presence)
    day = said.presence[0].window.start.isoformat()
    with sqlite3.connect(demo_db_file) as conn:
        listed = conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
        every = {r[0] for r in conn.execute("SELECT product_name FROM products")}
        sold = {r[0] for r in conn.execute(
            "SELECT DISTINCT p.product_name FROM order_items i JOIN orders o ON o.order_id = i.order_id "
            "JOIN products p ON p.product_id = i.product_id WHERE o.status = 1 AND o.order_date = ?", (day,))}
    assert {r[0] for r in listed} == every - sold and 0 < len(listed) < len(every)
