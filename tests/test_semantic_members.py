"""Counts of the members whose total passes a bound (`semantic.members`, `QueryPlan.count_members`): "有多少个
城市成交额超过100万", "how many days had more than 200 paid orders". Read from the question's words on the
demo's bundled model, compiled and run on a real demo database against SQL written here; the answer, its
chips and the engines' SQL. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.agent.plan_answer import PlanView
from wenshu.agent.plan_reply import chips
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan
from wenshu.semantic.thresholds import thresholds

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, measures: list[str]):
    got = ground(QueryPlan(measures=measures), MODEL, question)
    return got.plan, got.reason


def rows(db, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


@pytest.mark.parametrize(("question", "members", "measure", "op", "value"), [
    ("有多少个城市的销售额超过100万", ("city", None), "gmv", "gt", 1_000_000),
    ("累计实付满8000元的客户有多少位？", ("customer", None), "gmv", "gte", 8000),  # the amount paid, summed per customer
    ("How many customers brought in more than 6,000 yuan of revenue?", ("customer", None), "gmv", "gt", 6000),
    ("上周有多少个客户下过实付超过1000元的单", None, None, None, None),  # one order over 1000 yuan: no total
    ("how many shoppers had four or more paid orders", ("customer", None), "paid_orders", "gte", 4),
    ("订单量超过300单的日子有几天", (None, "day"), "paid_orders", "gt", 300),
    ("How many days had fewer than 250 paid orders?", (None, "day"), "paid_orders", "lt", 250),
    ("有多少个商品销量不少于20件", ("product", None), "units_sold", "gte", 20),
    ("上个月花了超过4000块的客户一共有几个", ("customer", None), "gmv", "gt", 4000),  # 一共有几个: counted
    ("How many of our brands sold more than 2,000 units this year?", ("brand", None), "units_sold", "gt", 2000),
    # the people counted by their own rows: "how many people" and a count of distinct buyers name the customers,
    # whose orders are counted (buyers per customer would be one each)
    ("How many people ordered on the web three or more times this year?", ("customer", None), "paid_orders", "gte", 3),
    ("今年有多少个客户下单超过6次", ("customer", None), "paid_orders", "gt", 6),
    ("今年有几位会员买过两次或以上", ("customer", None), "paid_orders", "gte", 2),  # no measure named: their orders
    ("上个月下单超过3次的客户有多少", ("customer", None), "paid_orders", "gt", 3),  # a number of times: orders
    ("有多少个品牌今年卖了不到800件", ("brand", None), "units_sold", "lt", 800),  # 件: the one measure in that unit
    ("今年有多少个城市下单超过2000单", ("city", None), "paid_orders", "gt", 2000),
    ("How many ship-to cities took in more than two thousand in GMV this week?", ("city", None), "gmv", "gt", 2000),
])  # fmt: skip
def test_a_count_of_members_names_the_members_and_the_bounded_total(question, members, measure, op, value):
    plan, reason = grounded(question, ["buyers"])  # the model's choice does not matter: the words say it all
    if members is None:
        assert plan is None or not plan.count_members
        return
    assert plan is not None, reason
    assert plan.count_members and (plan.dimensions[0] if plan.dimensions else None, plan.grain) == members
    assert plan.measures == [measure] and [(h.dimension, h.op, h.values) for h in plan.having] == [(measure, op, [value])]


def test_counted_members_match_hand_written_sql(demo_db_file):
    plan, _ = grounded("有多少个城市的销售额超过100万", ["gmv"])
    want = rows(demo_db_file, """SELECT COUNT(*) FROM (SELECT o.city_id FROM orders o WHERE o.status = 1
        GROUP BY o.city_id HAVING SUM(o.pay_amount) > 1000000)""")
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == want and want[0][0] > 0
    plan, _ = grounded("how many shoppers had four or more paid orders", ["paid_orders"])
    want = rows(demo_db_file, """SELECT COUNT(*) FROM (SELECT customer_id FROM orders WHERE status = 1
        GROUP BY customer_id HAVING COUNT(*) >= 4)""")
    assert rows(demo_db_file, compile_plan(MODEL, plan, lang="en").sql) == want and want[0][0] > 0
    plan, _ = grounded("How many people ordered on the web three or more times?", ["buyers"])
    want = rows(demo_db_file, """SELECT COUNT(*) FROM (SELECT customer_id FROM orders WHERE status = 1
        AND channel = 'web' GROUP BY customer_id HAVING COUNT(*) >= 3)""")
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == want and want[0][0] > 0
    plan, _ = grounded("订单量超过300单的日子有几天", ["paid_orders"])
    want = rows(demo_db_file, """SELECT COUNT(*) FROM (SELECT order_date FROM orders WHERE status = 1
        GROUP BY order_date HAVING COUNT(*) > 300)""")
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == want


def test_the_answer_states_the_count_and_its_chip_lists_the_members():
    plan, _ = grounded("有多少个城市的销售额超过100万", ["gmv"])
    compiled = compile_plan(MODEL, plan)
    assert compiled.columns == ["城市数"] and compile_plan(MODEL, plan, lang="en").columns == ["number of cities"]
    view = PlanView(MODEL, plan, "zh")
    assert view.explain(compiled.columns, [[7]]) == "销售额 > 1,000,000，城市数为 7。"
    assert view.chart(compiled.columns, [[7]], "t") is None
    by_kind = {c["kind"]: c for c in chips(view)}
    assert by_kind["count"]["label"] == "城市数" and "count_members" not in by_kind["count"]["remove"]
    assert by_kind["dimension"]["remove"] is None  # a count of members needs its members
    listed = QueryPlan.model_validate(by_kind["count"]["remove"])
    assert compile_plan(MODEL, listed).columns == ["城市", "销售额"]  # the cities that pass, with their totals


def test_a_count_of_days_is_named_for_days():
    plan, _ = grounded("How many days had fewer than 250 paid orders?", ["paid_orders"])
    assert compile_plan(MODEL, plan, lang="en").columns == ["number of days"]
    assert PlanView(MODEL, plan, "en").explain(["number of days"], [[3]]) == "orders < 250: number of days: 3."


@pytest.mark.parametrize(("text", "op", "value"), [
    ("three or more paid orders", "gte", 3), ("超过三单", "gt", 3), ("两次以上", "gte", 2), ("over twenty units", "gt", 20),
    ("销售额超过3个亿", "gt", 300_000_000), ("破亿", "gt", 100_000_000), ("不低于1.2亿元", "gte", 120_000_000),
    ("花了两万块以上", "gte", 20_000), ("不到三千元", "lt", 3000),
])  # fmt: skip
def test_small_numbers_in_words_are_bounds(text, op, value):
    assert [(t.op, t.value) for t in thresholds(text)] == [(op, value)]


@pytest.mark.parametrize(("question", "measure", "op", "value", "level"), [
    ("列出累计实付满6000元的金卡会员", "gmv", "gte", 6000, ["2"]),  # the amount paid, summed per customer
    ("which shoppers spent more than 4,000 yuan", "gmv", "gt", 4000, None),  # money, no measure named: the headline
    ("list the customers with at least 3 paid orders", "paid_orders", "gte", 3, None),
    ("哪些客户下了超过5个订单", "paid_orders", "gt", 5, None),  # a number of rows: the count named as its rows
    ("哪些买家退款超过2笔", "refund_count", "gt", 2, None),
    ("上个月谁花了超过8000块", "gmv", "gt", 8000, None),  # who: the model's one keyed kind of member
    ("Who placed more than 5 orders last month?", "paid_orders", "gt", 5, None),  # five orders: no order's value
    ("上个月金卡会员里，花钱超过6000块的有哪几个人", "gmv", "gt", 6000, ["2"]),  # 哪几个: which, not how many
    ("今年退款超过3笔的客户有哪些", "refund_count", "gt", 3, None),  # 笔 counts refunds, not the money refunded
    ("哪些会员今年下单超过8次", "paid_orders", "gt", 8, None),  # 下单 names the buyers: per customer, their orders
    ("今年下单8次以上的客户有哪些", "paid_orders", "gte", 8, None),  # picked by their orders, counted per customer
])  # fmt: skip
def test_a_list_of_members_bounded_on_their_total_keeps_the_members_that_pass(question, measure, op, value, level):
    plan, reason = grounded(question, ["buyers"])
    assert plan is not None, reason
    assert plan.dimensions == ["customer"] and plan.measures == [measure] and not plan.records
    assert [(h.dimension, h.op, h.values) for h in plan.having] == [(measure, op, [value])]
    assert [f.values for f in plan.filters if f.dimension == "member_level"] == ([level] if level else [])


def test_who_asks_for_the_members_ranked_or_listed():
    plan, reason = grounded("钻石会员里谁的消费金额最高", ["gmv"])
    assert plan is not None, reason
    assert plan.dimensions == ["customer"] and plan.order == "desc" and plan.measures == ["gmv"]
    assert [f.values for f in plan.filters] == [["3"]]
    plan, _ = grounded("Name the 5 shoppers who spent the most this year", ["gmv"])
    assert plan.dimensions == ["customer"] and plan.limit == 5
    question = "Who bought 10 or more paid orders this year? Show their gender and order count too."
    plan = ground(QueryPlan(measures=["paid_orders"], dimensions=["gender"]), MODEL, question).plan  # the model's
    # split by gender: an attribute of the customers asked for
    assert plan.dimensions == ["customer", "gender"] and [h.values for h in plan.having] == [[10]]
    plan, _ = grounded("金卡会员都有谁", ["gmv"])  # no measure: the customers themselves
    assert plan.records == "customers" and [f.values for f in plan.filters] == [["2"]]


def test_listed_members_match_hand_written_sql_and_a_row_bound_stays_a_list_of_rows(demo_db_file):
    plan, _ = grounded("列出累计实付满6000元的金卡会员", ["gmv"])
    want = rows(demo_db_file, """SELECT c.customer_id, c.customer_name, ROUND(SUM(o.pay_amount), 2) FROM orders o
        JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 1 AND c.member_level = 2
        GROUP BY c.customer_id HAVING SUM(o.pay_amount) >= 6000""")
    got = rows(demo_db_file, compile_plan(MODEL, plan).sql)
    assert sorted((a, b, round(c, 2)) for a, b, c in got) == sorted(want) and len(want) > 1
    plan, _ = grounded("列出实付金额超过5000元的订单", ["gmv"])  # one order's amount: the orders themselves
    assert plan.records == "order" and not plan.having and not plan.dimensions


def test_members_kept_on_a_total_come_ordered_by_it_and_then_by_the_other_measures(demo_db_file):
    plan, _ = grounded("退款超过2笔的客户有哪些？退款金额和笔数都要", ["refund_amount"])
    assert plan.measures == ["refund_amount", "refund_count"]  # as asked; kept on the count: ordered by it
    want = rows(demo_db_file, """SELECT c.customer_id, c.customer_name, ROUND(SUM(r.refund_amount), 2), COUNT(*)
        FROM refunds r JOIN orders o ON o.order_id = r.order_id JOIN customers c ON c.customer_id = o.customer_id
        GROUP BY c.customer_id HAVING COUNT(*) > 2 ORDER BY COUNT(*) DESC, SUM(r.refund_amount) DESC""")
    assert rows(demo_db_file, compile_plan(MODEL, plan).sql) == want and len({w[3] for w in want}) < len(want)


@pytest.mark.parametrize(("text", "value"), [
    ("超过一千二百元", 1200), ("一万五及以上", 15000), ("超过两万五", 25000), ("三千五以上", 3500), ("超过两百块", 200),
    ("more than two thousand yuan", 2000), ("over 1.5k", 1500), ("超过2百万", 2_000_000),
    ("至少成交两单", 2),  # a verb between the word and the number
])  # fmt: skip
def test_amounts_said_in_words_are_their_numbers(text, value):
    assert [t.value for t in thresholds(text)] == [value]


@pytest.mark.parametrize("text", ["at least one item", "不到一半", "more than two weeks ago", "三月份", "卖得最多的5个商品"])
def test_words_that_are_no_bound_stay_none(text):
    assert thresholds(text) == []


def test_a_share_asked_with_its_amount_states_both(demo_db_file):
    plan, _ = grounded("上个月超过2000元的订单有多少单，占比多少？", ["paid_orders"])
    assert plan.share and plan.value_too and not plan.share_only()
    ((count, share),) = rows(demo_db_file, compile_plan(MODEL, plan).sql)
    ((part, whole),) = rows(demo_db_file, "SELECT SUM(pay_amount > 2000), COUNT(*) FROM orders WHERE status = 1")
    assert (count, share) == (part, round(100.0 * part / whole, 2))
    plan, _ = grounded("超过2000元的订单占已支付订单的比例", ["paid_orders"])
    assert plan.share_only()  # the share alone when only the share is asked


def test_a_count_of_members_is_answered_in_the_graph_without_a_model_call(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.contracts import AgentRequest
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    agent = Agent(Settings(semantic_path=True), store, models=ModelClient({"fast": fake_model, "strong": fake_model},
                                                                           provider="fake"))
    resp = agent.ask(AgentRequest(message="上个月有多少个城市的销售额超过10万？"))
    assert resp.error is None, resp.error
    plan = next(t for t in resp.trace if t.node == "plan")
    assert plan.status == "ok" and "count of members" in plan.detail and not fake_model.calls
    assert "COUNT(*)" in resp.sql and "城市数为" in resp.answer


def test_a_split_added_to_a_count_counts_the_members_in_each_group(demo_db_file):
    from wenshu.semantic.edits import edit
    from wenshu.semantic.mentions import read

    first, _ = grounded("有多少个城市的销售额超过20万", ["gmv"])
    follow = "按大区拆一下"
    plan = edit(first, read(MODEL, follow), None, follow, MODEL)
    assert plan.count_members and plan.dimensions == ["city", "region"]
    compiled = compile_plan(MODEL, plan)
    assert compiled.columns == ["大区", "城市数"]
    want = rows(demo_db_file, """SELECT r.region_name, COUNT(*) FROM (SELECT o.city_id FROM orders o WHERE o.status = 1
        GROUP BY o.city_id HAVING SUM(o.pay_amount) > 200000) kept JOIN cities c ON c.city_id = kept.city_id
        JOIN regions r ON r.region_id = c.region_id GROUP BY r.region_name""")
    got = rows(demo_db_file, compiled.sql)
    assert sorted(got) == sorted(want) and len(got) > 1 and [n for _, n in got] == sorted((n for _, n in got), reverse=True)
    view = PlanView(MODEL, plan, "zh")
    assert view.explain(compiled.columns, [list(r) for r in got]).startswith(f"销售额 > 200,000，按大区的城市数，共 {len(got)} 行；最多的是")
    assert view.chart(compiled.columns, [list(r) for r in got], "t") is not None
    dims = [c for c in chips(view) if c["kind"] == "dimension"]
    assert dims[0]["remove"] is None and QueryPlan.model_validate(dims[1]["remove"]).dimensions == ["city"]
