"""What the members that pass a bound add up to (`semantic.passing`): "上个月下单超过3次的客户一共贡献了多少GMV",
"…的客户，平均客单价是多少", "customers with more than 3 orders: their total GMV"; and the ways a number of rows per
member is said (退款超过2次, 订单超过3笔, 消费次数大于3, 订单数超过20, …的客户数, 不止一单, "more than once",
"at least twice"). Read from the question's words on the demo's bundled model, compiled and run on a real demo
database against SQL written here. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.agent.plan_answer import PlanView
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.compiled import PlanNotCompilable
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))
PER_CUSTOMER = """SELECT customer_id, COUNT(*) AS n, SUM(pay_amount) AS gmv FROM orders WHERE status = 1
    GROUP BY customer_id HAVING COUNT(*) {bound}"""


def grounded(question: str) -> QueryPlan:
    """As the agent's plan step reads it: money asked with no measure named is the headline measure."""
    got = ground(QueryPlan(measures=["gmv"]), MODEL, question, mentions=headlined(MODEL, read(MODEL, question), question))
    assert got.plan is not None, got.reason
    return got.plan


def rows(db, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


@pytest.mark.parametrize(("question", "asked", "bound", "total"), [
    ("下单超过3次的客户一共贡献了多少GMV？", "gmv", "> 3", "ROUND(SUM(gmv), 2)"),
    ("Customers with more than 3 orders: what is their total GMV?", "gmv", "> 3", "ROUND(SUM(gmv), 2)"),
    ("下单次数超过2次的客户，平均客单价是多少？", "aov", "> 2", "ROUND(1.0 * SUM(gmv) / SUM(n), 2)"),  # their sums divided
    ("买了不止一单的顾客合计花了多少钱", "gmv", "> 1", "ROUND(SUM(gmv), 2)"),
    ("只下过一次单的客户有几个？他们一共花了多少？", "gmv", "= 1", "ROUND(SUM(gmv), 2)"),  # exactly once
    ("How many customers ordered only once, and how much did they spend together?", "gmv", "= 1", "ROUND(SUM(gmv), 2)"),
])  # fmt: skip
def test_the_members_that_pass_are_counted_and_added_up(question, asked, bound, total, demo_db_file):
    plan = grounded(question)
    assert plan.count_members and plan.dimensions == ["customer"] and plan.measures == ["paid_orders", asked]
    assert [(h.dimension, h.op) for h in plan.having] == [("paid_orders", "eq" if "=" == bound[0] else "gt")]
    lang = "en" if question.isascii() else "zh"
    compiled = compile_plan(MODEL, plan, lang=lang)
    want = rows(demo_db_file, f"SELECT COUNT(*), {total} FROM ({PER_CUSTOMER.format(bound=bound)})")
    assert rows(demo_db_file, compiled.sql) == want and want[0][0] > 0
    text = PlanView(MODEL, plan, lang).explain(compiled.columns, [list(r) for r in want])
    assert f"{want[0][0]:,}" in text and f"{want[0][1]:,.2f}" in text, text  # both numbers told


def test_each_member_asked_is_a_list_kept_on_its_orders_not_on_the_amount_asked(demo_db_file):
    plan = grounded("下单超过3次的客户各贡献了多少GMV")
    assert not plan.count_members and plan.dimensions == ["customer"]
    assert [(h.dimension, h.op, h.values) for h in plan.having] == [("paid_orders", "gt", [3])]  # not GMV > 3
    compiled = compile_plan(MODEL, plan)
    at = compiled.columns.index("销售额")
    got = rows(demo_db_file, compiled.sql)
    want = rows(demo_db_file, PER_CUSTOMER.format(bound="> 3"))
    assert sorted((r[0], r[at]) for r in got) == sorted((r[0], round(r[2], 2)) for r in want) and want


@pytest.mark.parametrize(("question", "measure", "op", "value"), [
    ("退款超过2次的客户有多少个", "refund_count", "gt", 2),  # the refunds named before the number
    ("上个月订单超过3笔的客户有多少位", "paid_orders", "gt", 3),  # orders, though 笔 is the refunds' unit
    ("上个月消费次数大于3的客户有多少", "paid_orders", "gt", 3),  # a number of times before the bound
    ("去年订单数超过20的客户数量", "paid_orders", "gt", 20),  # a count measure before it, not an order's amount
    ("今年成交超过10单的客户数", "paid_orders", "gt", 10),  # …的客户数: the customers counted
    ("多少个客户上个月下了不止一单？", "paid_orders", "gt", 1),
    ("The number of customers who ordered more than twice last month", "paid_orders", "gt", 2),
    ("How many customers bought at least twice last month?", "paid_orders", "gte", 2),
    ("How many customers placed orders more than once this year?", "paid_orders", "gt", 1),
])  # fmt: skip
def test_a_number_of_rows_per_member_said_many_ways_counts_the_members(question, measure, op, value):
    plan = grounded(question)
    assert plan.count_members and plan.dimensions == ["customer"] and plan.measures == [measure]
    assert [(h.dimension, h.op, h.values) for h in plan.having] == [(measure, op, [value])]


def test_the_refunds_bound_counts_refund_rows_per_customer(demo_db_file):
    plan = grounded("退款超过2次的客户有多少个")
    want = rows(demo_db_file, """SELECT COUNT(*) FROM (SELECT o.customer_id FROM refunds r JOIN orders o
        ON o.order_id = r.order_id GROUP BY o.customer_id HAVING COUNT(*) > 2)""")
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == want and want[0][0] > 0


def test_an_amount_bound_on_the_rows_stays_a_row_bound_and_a_total_of_distinct_counts_is_refused():
    plan = grounded("GMV by region from orders above 3,000 yuan")  # the orders' own word: their amount, no count
    assert [(f.dimension, f.op) for f in plan.filters] == [("orders.pay_amount", "gt")] and not plan.having
    plan = QueryPlan(measures=["paid_orders", "buyers"], dimensions=["customer"], count_members=True,
                     having=[{"dimension": "paid_orders", "op": "gt", "values": [3]}])
    with pytest.raises(PlanNotCompilable):  # distinct buyers do not add up over members
        compile_plan(MODEL, plan)


def test_the_share_of_repeat_buyers_among_the_customers_who_bought_is_the_repeat_rate(demo_db_file):
    question = "今年在店里买过东西的客户里，回购（两单及以上）的占几成？"
    plan = grounded(question)
    assert plan.measures == ["repeat_rate"] and not plan.dimensions and not plan.share  # not one row per customer
    chosen = QueryPlan(measures=["repeat_buyers"], dimensions=["customer"], share=True)  # the model split by customer
    m = headlined(MODEL, read(MODEL, question), question)
    assert ground(chosen, MODEL, question, mentions=m).plan == plan  # the customers are what the count counts
    want = rows(demo_db_file, """SELECT ROUND(100.0 * SUM(n >= 2) / COUNT(*), 2) FROM (SELECT customer_id, COUNT(*) AS n
        FROM orders WHERE status = 1 AND order_date >= date('now', 'start of year') GROUP BY customer_id)""")
    from wenshu.semantic.windows import plan_window

    planned = plan.model_copy(update={"window": plan_window("今年", "none")})
    assert rows(demo_db_file, compile_plan(MODEL, planned).sql) == want
