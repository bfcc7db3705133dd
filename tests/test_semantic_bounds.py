"""Bounds on row values in plans of totals (`semantic.bounds`): "more than N" on a row's value rides in the
plan as a filter each measure applies to its own rows, a bound on a total per member goes to free SQL, a
follow-up moves a bound, and the answer states it. Pure functions on the demo's bundled model; compiled SQL
is run on a real demo database and checked against SQL written here. The questions are written here."""

from __future__ import annotations

import json
import sqlite3

import pytest

from wenshu.agent.plan_answer import PlanView
from wenshu.agent.plan_reply import chips
from wenshu.contracts import AgentRequest
from wenshu.semantic.compile import PlanNotCompilable, compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground, prefer_finer
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.windows import followup_window

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, measures: list[str]):
    got = ground(QueryPlan(measures=measures), MODEL, question)
    return got.plan, got.reason


def run(db, plan: QueryPlan, lang: str = "zh") -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(compile_plan(MODEL, plan, "sqlite", lang).sql).fetchall()


def one(db, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_a_count_of_orders_bounded_by_the_amount_paid_counts_only_those_rows(demo_db_file):
    plan, _ = grounded("实付金额超过5000元的订单有多少单", ["gmv", "paid_orders"])
    assert plan.measures == ["paid_orders"]  # 实付金额 is the bounded value here, not an amount asked for
    assert [f.model_dump() for f in plan.filters] == [{"dimension": "orders.pay_amount", "op": "gt", "values": [5000]}]
    want = one(demo_db_file, "SELECT COUNT(*) FROM orders WHERE status = 1 AND pay_amount > 5000")
    assert run(demo_db_file, plan) == want and want[0][0] > 0


def test_a_sum_by_region_over_orders_above_a_bound_matches_the_bounded_rows(demo_db_file):
    plan, _ = grounded("GMV by region from orders above 3,000 yuan", ["gmv"])
    assert plan.dimensions == ["region"] and plan.filters[0].dimension == "orders.pay_amount"
    got = dict(run(demo_db_file, plan, "en"))
    want = dict(one(demo_db_file, """SELECT r.region_name, ROUND(SUM(o.pay_amount), 2) FROM orders o
        JOIN cities c ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id
        WHERE o.status = 1 AND o.pay_amount > 3000 GROUP BY r.region_name"""))
    assert got == want and len(want) > 1


def test_a_field_named_before_the_number_is_the_bounded_value():
    plan, _ = grounded("订单金额在3000元以上的订单，各渠道多少单", ["paid_orders"])
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("orders.total_amount", "gte", [3000])]
    plan, _ = grounded("how many refunds were above 1,000 yuan", ["refund_count"])
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("refunds.refund_amount", "gt", [1000])]


@pytest.mark.parametrize("question", [
    "which days had more than 300 paid orders",  # days listed: no dimension holds them
    "customers who spent more than 20,000 yuan in total",  # neither asked for one by one nor counted
])  # fmt: skip
def test_a_bound_on_a_total_no_plan_holds_is_left_to_free_sql(question):
    plan, reason = grounded(question, ["gmv"])
    assert plan is None and "free SQL" in reason


@pytest.mark.parametrize(("text", "bounds"), [
    ("实付满300元的订单", [("gte", 300)]), ("不到100块的小单", [("lt", 100)]), ("不满50元", [("lt", 50)]),
    ("成交额超过了250万", [("gt", 2_500_000)]), ("实付在200到500元之间", [("gte", 200), ("lte", 500)]),
    ("between ¥1,000 and ¥2,000", [("gte", 1000), ("lte", 2000)]),
    ("cities above half a million yuan", [("gt", 500_000)]), ("at least a quarter of a million", [("gte", 250_000)]),
    ("under three quarters of a million", [("lt", 750_000)]), ("over a million in sales", [("gt", 1_000_000)]),
    ("orders above six and a half thousand yuan", [("gt", 6500)]), ("under two and a half million", [("lt", 2_500_000)]),
    ("at least one item", []), ("只下过一单的客户", [("eq", 1)]), ("正好3单", [("eq", 3)]), ("only once", [("eq", 1)]),
    ("只看前5单", []), ("只有5个城市", []),  # a top N and a statement, no bound
])  # fmt: skip
def test_more_ways_to_say_a_bound_are_read(text, bounds):
    assert [(t.op, t.value) for t in thresholds(text)] == bounds


def test_no_range_in_months_dates_or_a_plain_word():
    assert thresholds("1到3月的销售额") == [] and thresholds("客户满意度") == [] and thresholds("between 2 and 5 days") == []
    assert thresholds("在2025-11-01到2025-11-30之间的订单量") == [] and thresholds("在2025/11/01到2025/11/30之间") == []


def test_a_range_bounds_the_rows_at_both_ends(demo_db_file):
    plan, _ = grounded("实付在200到500元之间的订单有多少单", ["paid_orders"])
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [
        ("orders.pay_amount", "gte", [200]), ("orders.pay_amount", "lte", [500])]
    want = one(demo_db_file, "SELECT COUNT(*) FROM orders WHERE status = 1 AND pay_amount BETWEEN 200 AND 500")
    assert run(demo_db_file, plan) == want
    moved = edit(plan, read(MODEL, "按渠道拆一下"), None, "按渠道拆一下", MODEL)
    assert moved.filters == plan.filters and moved.dimensions == ["channel"]  # both ends stay


def test_the_average_of_a_rows_value_per_order_is_the_average_order_value():
    plan, _ = grounded("What was the average amount paid on orders over 1,000 yuan?", ["paid_orders"])
    assert plan.measures == ["aov"] and ("orders.pay_amount", "gt", [1000]) in [
        (f.dimension, f.op, f.values) for f in plan.filters]


def test_a_field_in_brackets_before_its_bound_and_a_field_of_the_measures_rows():
    plan, _ = grounded("How many paid orders with an order value (before coupons) of 1,000 yuan or more?", ["paid_orders"])
    assert [(f.dimension, f.op) for f in plan.filters] == [("orders.total_amount", "gte")]
    plan, _ = grounded("最近30天购买数量不少于3件的那些明细，一共卖了多少件？", ["units_sold"])
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("order_items.quantity", "gte", [3])]


def test_a_measure_whose_rows_do_not_carry_the_bound_is_not_planned():
    plan, reason = grounded("订单实付金额超过5000元的那些天，访客数是多少", ["uv"])
    assert plan is None and "do not carry" in reason


def test_a_bound_on_orders_reaches_a_measure_of_their_lines(demo_db_file):
    plan, _ = grounded("上个月实付金额超过3000元的订单，各品类的销售额", ["gmv"])
    plan, notes = prefer_finer(plan, MODEL)
    assert plan.measures == ["item_sales"] and notes
    sql = compile_plan(MODEL, plan, "sqlite", "zh").sql
    assert '"orders"."pay_amount" > 3000' in sql and run(demo_db_file, plan)


def test_a_bound_on_a_field_of_the_members_own_rows_filters_them_not_their_totals(demo_db_file):
    for question in ("列出标价低于80元的商品和各自卖了多少件", "标价80元以下的商品，各卖了多少件"):
        plan, reason = grounded(question, ["units_sold"])
        assert plan is not None, reason
        assert plan.dimensions == ["product"] and not plan.having
        assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("products.unit_price", plan.filters[0].op, [80])]
    want = one(demo_db_file, """SELECT p.product_name, SUM(oi.quantity) FROM order_items oi JOIN orders o
        ON o.order_id = oi.order_id JOIN products p ON p.product_id = oi.product_id
        WHERE o.status = 1 AND p.unit_price <= 80 GROUP BY p.product_id""")
    assert sorted(run(demo_db_file, plan)) == sorted(want) and want
    plan, _ = grounded("Products listed under 80 yuan: how many units did each one sell last month?", ["units_sold"])
    assert plan.dimensions == ["product"] and [f.dimension for f in plan.filters] == ["products.unit_price"]
    plan, reason = grounded("每个标价超过3000元的商品的销售额", ["gmv"])  # no total per product above 3,000
    assert plan is None or not plan.having


def test_a_share_of_bounded_orders_is_the_part_over_the_whole(demo_db_file):
    plan, _ = grounded("超过5000元的订单占已支付订单的比例", ["paid_orders"])
    assert plan.share_only()
    ((share,),) = run(demo_db_file, plan)
    ((part, whole),) = one(demo_db_file, "SELECT SUM(pay_amount > 5000), COUNT(*) FROM orders WHERE status = 1")
    assert share == round(100.0 * part / whole, 2)


@pytest.mark.parametrize(("follow_up", "expect"), [
    ("那超过1000的呢？", {"op": "gt", "values": [1000]}),
    ("what about 2,000 or more instead?", {"op": "gte", "values": [2000]}),
])  # fmt: skip
def test_a_follow_up_moves_the_bound(follow_up, expect):
    before, _ = grounded("上个月实付金额超过5000元的订单有多少单", ["paid_orders"])
    after = edit(before, read(MODEL, follow_up), followup_window(follow_up, before.window, "none"), follow_up, MODEL)
    assert [f.model_dump() for f in after.filters] == [{"dimension": "orders.pay_amount", **expect}]
    assert after.measures == before.measures


def test_a_follow_up_adds_a_bound_on_the_rows_the_plan_counts_and_a_split_keeps_it():
    before, _ = grounded("各大区的订单量", ["paid_orders"])
    after = edit(before, read(MODEL, "只看超过5000元的"), None, "只看超过5000元的", MODEL)
    assert [f.dimension for f in after.filters] == ["orders.pay_amount"] and after.dimensions == ["region"]
    split = edit(after, read(MODEL, "按渠道拆一下"), None, "按渠道拆一下", MODEL)
    assert split.filters == after.filters and "channel" in split.dimensions


def test_the_answer_and_its_chip_state_the_bound():
    plan, _ = grounded("实付金额超过5000元的订单有多少单", ["paid_orders"])
    zh, en = PlanView(MODEL, plan, "zh"), PlanView(MODEL, plan, "en")
    assert zh.explain(["订单量"], [[12]]).startswith("实付金额 > 5,000，")
    assert en.scope() == "amount paid > 5,000"
    (chip,) = [c for c in chips(zh) if c["kind"] == "filter"]
    assert chip["label"] == "实付金额 > 5,000" and "filters" not in chip["remove"]  # removing it drops the bound


def test_the_plan_path_answers_a_bounded_count_in_the_graph(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    agent = Agent(Settings(semantic_path=True), store, models=ModelClient({"fast": fake_model, "strong": fake_model},
                                                                           provider="fake"))
    fake_model.queue(json.dumps({"measures": ["paid_orders"]}))
    resp = agent.ask(AgentRequest(message="上个月实付金额超过5000元的订单有多少单"))
    assert resp.error is None, resp.error
    plan = next(t for t in resp.trace if t.node == "plan")
    assert plan.status == "ok" and '"pay_amount" > 5000' in resp.sql and len(fake_model.calls) == 1
    assert "实付金额 > 5,000" in resp.answer


def test_a_value_index_hit_inside_a_fields_word_is_no_value():
    hit = {"table": "categories", "column": "category_name", "value": "商品", "label": "商品"}
    m = read(MODEL, "去年商品总额在5000元以上的已支付订单有多少单", [hit])
    assert "category" not in m.values  # 商品总额 names the order's total amount
    assert read(MODEL, "商品的订单量", [hit]).values.get("category") == ["商品"]  # a hit said on its own stays


def test_a_value_the_model_reads_inside_a_fields_word_is_dropped():
    question = "去年商品总额在5000元以上的已支付订单，按渠道看各有多少单？"
    got = ground(QueryPlan(measures=["paid_orders"], filters=[{"dimension": "category", "values": ["商品"]}]), MODEL, question)
    assert "category" not in [f.dimension for f in got.plan.filters] and "filter category" in got.dropped
    kept = ground(QueryPlan(measures=["units_sold"], filters=[{"dimension": "category", "values": ["手机数码"]}]),
                  MODEL, "手机数码品类卖了多少件")  # 手机 is a field's word (a phone number), 手机数码 a value said
    assert [f.values for f in kept.plan.filters] == [["手机数码"]]


def test_members_whose_total_passes_a_bound_keep_their_whole_totals(demo_db_file):
    plan, _ = grounded("哪些城市今年销售额超过100万？各是多少？", ["gmv"])
    assert plan.dimensions == ["city"] and plan.filters == []
    assert [h.model_dump() for h in plan.having] == [{"dimension": "gmv", "op": "gt", "values": [1_000_000]}]
    want = one(demo_db_file, """SELECT c.city_name, ROUND(SUM(o.pay_amount), 2) FROM orders o
        JOIN cities c ON c.city_id = o.city_id WHERE o.status = 1 GROUP BY c.city_name HAVING SUM(o.pay_amount) > 1000000""")
    assert sorted(run(demo_db_file, plan)) == sorted(want) and want
    assert PlanView(MODEL, plan, "zh").scope() == "销售额 > 1,000,000"
    (chip,) = [c for c in chips(PlanView(MODEL, plan, "zh")) if c["kind"] == "filter"]
    assert chip["label"] == "销售额 > 1,000,000" and "having" not in chip["remove"]


def test_a_bound_on_units_per_category_and_on_sales_per_brand_uses_the_measure_named_with_it(demo_db_file):
    plan, _ = grounded("Which categories sold more than 4,000 units? Give the unit count for each.", ["units_sold"])
    assert plan.dimensions == ["category"] and [h.dimension for h in plan.having] == ["units_sold"]
    assert all(r[1] > 4000 for r in run(demo_db_file, plan, "en"))
    plan, _ = grounded("Which brands brought in more than 300,000 yuan of sales last month?", ["gmv"])
    plan, _ = prefer_finer(plan, MODEL)  # GMV cannot be split by brand: the item sales, and their bound with them
    assert plan.measures == ["item_sales"] and [h.dimension for h in plan.having] == ["item_sales"]


def test_a_follow_up_moves_a_bound_on_totals_and_a_total_with_nothing_to_split_is_not_compiled():
    before, _ = grounded("哪些城市今年销售额超过100万", ["gmv"])
    after = edit(before, read(MODEL, "那超过300万的呢"), None, "那超过300万的呢", MODEL)
    assert [h.values for h in after.having] == [[3_000_000]] and after.filters == []
    with pytest.raises(PlanNotCompilable):
        compile_plan(MODEL, before.model_copy(update={"dimensions": []}), "sqlite", "zh")


def test_a_follow_up_that_swaps_the_measure_drops_the_bound_on_its_total():
    before, _ = grounded("哪些城市今年销售额超过100万", ["gmv"])
    after = edit(before, read(MODEL, "换成订单量"), None, "换成订单量", MODEL)
    assert after.measures == ["paid_orders"] and after.having == [] and after.dimensions == ["city"]
