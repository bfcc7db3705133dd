"""How people type to a data assistant at work: abbreviated units ("past 8 wks"), 总 inside a name (退款总金额),
the total of a record's field ("total amount paid"), a number of pieces (多少件), a value the value index puts
in another dimension, "across all" as the whole, ranking words (垫底) and "vs" an earlier period, and a keyed
dimension shown by its key and name. Pure functions on the demo's bundled model, compiled SQL run on a real
demo database; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.knowledge.time_phrases import find_windows
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import Filter, QueryPlan

MODEL = parse_model(bundled_text("demo"))


@pytest.mark.parametrize("question", ["weekly GMV past 8 wks", "orders last 3 wk", "refunds over the last 6 mos"])
def test_abbreviated_units_are_the_same_windows(question):
    full = question.replace(" wks", " weeks").replace(" wk", " weeks").replace(" mos", " months")
    assert [(w.start, w.end) for w in find_windows(question)] == [(w.start, w.end) for w in find_windows(full)] != []


@pytest.mark.parametrize(("question", "measures"), [
    ("上周退款总金额和退款笔数", ["refund_amount", "refund_count"]),  # 总 before the head of 退款金额
    ("本月销售总额是多少", ["gmv"]),
    ("上周的销售金额", ["gmv"]),  # an amount's 额 said in full
    ("top 5 cities by total amount paid last month", ["gmv"]),  # the sum of the field the order calls amount paid
    ("本周各品类卖出去多少件", ["units_sold"]),  # 件 is the unit of a sum of pieces, 卖 one of its name's characters
    ("这个季度每周退回去的钱", ["refund_amount"]),  # 退的钱 said with the verb's direction
    ("上个月退掉的钱按原因分一下", ["refund_amount"]),  # and with its result
    ("本周哪个品类走量最好", ["units_sold"]),  # 走量: the volume sold
])  # fmt: skip
def test_names_said_with_total_or_by_their_unit(question, measures):
    assert read(MODEL, question).measures == measures


def test_a_unit_alone_is_no_sum_of_pieces():
    assert "pv" not in read(MODEL, "上个月下单多少次").measures  # 次 is the page views' unit; nothing else of it is said


def test_a_value_of_another_dimension_is_no_filter_on_this_one():
    question = "上周发往上海的已付款订单一共有几笔"
    plan = QueryPlan(measures=["paid_orders"], filters=[Filter(dimension="region", values=["上海"]),
                                                         Filter(dimension="city", values=["上海"])])
    hits = [{"table": "cities", "column": "city_name", "value": "上海"}]  # what the value index finds
    got = ground(plan, MODEL, question, hits).plan
    filters = {f.dimension: f.values for f in got.filters}
    assert "region" not in filters and filters["city"] == ["上海"]


def test_across_all_is_the_whole_not_a_split():
    assert read(MODEL, "total UV and PV yesterday across all channels").split == []
    plan = ground(QueryPlan(measures=["uv", "pv"], dimensions=["channel"]), MODEL, "total UV and PV yesterday across all channels").plan
    assert plan.dimensions == []
    assert read(MODEL, "GMV across channels last week").split == ["channel"]


def test_bottom_ranked_and_versus_an_earlier_period():
    plan = ground(QueryPlan(measures=["gmv"]), MODEL, "上个月销售额垫底的3个品牌").plan
    assert (plan.dimensions, plan.order, plan.limit) == (["brand"], "asc", 3)
    assert ground(QueryPlan(measures=["gmv"]), MODEL, "上周GMV vs 前一周").plan.compare == "previous"


def test_a_keyed_dimension_shows_its_key_then_its_name(demo_db_file):
    plan = ground(QueryPlan(measures=["gmv"]), MODEL, "top 10 customers by total amount paid, with names").plan
    assert (plan.measures, plan.dimensions, plan.limit) == (["gmv"], ["customer"], 10)
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    assert compiled.columns[:2] == ["customer ID", "customer"]
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compiled.sql).fetchall()
        expected = conn.execute("SELECT c.customer_id, c.customer_name, ROUND(SUM(o.pay_amount), 2) AS v FROM orders o"
                                " JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 1"
                                " GROUP BY c.customer_id, c.customer_name ORDER BY v DESC LIMIT 10").fetchall()
    assert got == expected


def _edited(previous: QueryPlan, question: str) -> QueryPlan | None:
    from wenshu.semantic.edits import edit

    return edit(previous, read(MODEL, question), None, question, MODEL)


def test_a_follow_up_naming_the_rows_filters_them_and_keeps_the_measure():
    before = QueryPlan(measures=["gmv"], dimensions=["region"])
    plan = _edited(before, "ok and only the orders thru app?")
    assert plan.measures == ["gmv"] and [(f.dimension, f.values) for f in plan.filters] == [("channel", ["app"])]
    assert _edited(before, "how many orders thru app?").measures == ["paid_orders"]  # a count asked: counted


@pytest.mark.parametrize("question", ["其他region也都列出来看看", "其他大区呢", "what about the other regions?"])
def test_the_other_members_of_a_filtered_dimension_split_by_it(question):
    before = QueryPlan(measures=["refund_rate"], filters=[Filter(dimension="region", values=["华东"])])
    plan = _edited(before, question)
    assert (plan.measures, plan.dimensions, plan.filters) == (["refund_rate"], ["region"], [])  # no city tier 其他


def test_returned_orders_listed_with_refund_fields_are_the_refunds(demo_db_file):
    from wenshu.semantic.listing import detail

    question = "最近3笔退货的订单，要订单号、退款金额和退款原因"  # 退货: the demo's refunds (no separate returns)
    plan = detail(MODEL, read(MODEL, question), question).plan
    assert (plan.records, plan.columns, plan.order_by, plan.order, plan.limit) == (
        "refund", ["order_id", "refund_amount", "refund_reason"], "refund_time", "desc", 3)
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
        expected = conn.execute("SELECT order_id, refund_amount, reason FROM refunds"
                                " ORDER BY refund_time DESC, refund_id DESC LIMIT 3").fetchall()
    assert got == expected


def test_a_short_code_inside_a_word_is_not_said():
    hits = [{"table": "customers", "column": "gender", "value": "M", "label": "M"}]  # what a value index may return
    assert read(MODEL, "how many buyers had more than 2 paid orders in March", hits).values == {}  # "many", "March"
    assert read(MODEL, "M 客户有多少", hits).values == {"gender": ["M"]}


@pytest.mark.parametrize(("question", "dimension"), [("rank the cities by AOV this month", "city"),
                                                     ("compare the channels on refund amount last week", "channel")])
def test_the_object_of_rank_or_compare_is_the_split(question, dimension):
    assert read(MODEL, question).split == [dimension]


@pytest.mark.parametrize("question", ["按渠道和大区看本周订单量", "paid orders this week by region and channel"])
def test_two_dimensions_joined_after_one_split_word_both_split(question):
    assert sorted(read(MODEL, question).split) == ["channel", "region"]


@pytest.mark.parametrize(("question", "order"), [("GMV by city last month, largest first", "desc"),
                                                 ("上月各渠道订单量从低到高排", "asc")])
def test_an_order_said_without_a_number_sorts_every_member(question, order):
    plan = ground(QueryPlan(measures=read(MODEL, question).measures, limit=10), MODEL, question).plan
    assert (plan.order, plan.limit) == (order, None) and plan.dimensions


@pytest.mark.parametrize(("question", "compare"), [("把去年8月的也放进来对比一下", "yoy"), ("compare it with July", "previous")])
def test_a_follow_up_naming_the_earlier_period_to_compare_with(question, compare):
    from datetime import date

    from wenshu.semantic.plan import Window
    from wenshu.semantic.windows import followup_window

    from wenshu.semantic.edits import edit

    before = QueryPlan(measures=["gmv"], window=Window(start=date(2026, 8, 1), end=date(2026, 9, 1)))
    m = read(MODEL, question)
    plan = edit(before, m, followup_window(question, before.window, m.compare), question, MODEL)
    assert (plan.compare, plan.window) == (compare, before.window)


def test_a_value_the_model_copied_as_written_is_the_one_the_value_index_pinned():
    question = "paid orders to Hangzhou from male customers last week"
    hits = [{"table": "cities", "column": "city_name", "value": "杭州", "label": "hangzhou"}]  # pinyin, as indexed
    plan = QueryPlan(measures=["paid_orders"], filters=[Filter(dimension="city", values=["Hangzhou"])])
    got = {f.dimension: f.values for f in ground(plan, MODEL, question, hits).plan.filters}
    assert got["city"] == ["杭州"] and got["gender"] == ["M"]


@pytest.mark.parametrize(("question", "reason"), [("refunds for quality issues last week: order id and amount", "商品质量问题"),
                                                  ("上周因为物流慢退款的金额", "物流太慢"),
                                                  ("refunds where the parcel arrived damaged", "商品破损")])
def test_refund_reasons_said_in_english_or_for_short(question, reason):
    plan = ground(QueryPlan(measures=["refund_amount"]), MODEL, question).plan
    assert [(f.dimension, f.values) for f in plan.filters] == [("refund_reason", [reason])]


def test_money_paid_back_on_refunds_is_their_amount_not_their_count():
    plan = ground(QueryPlan(measures=["refund_count"]), MODEL, "how much we paid back on refunds each week").plan
    assert plan.measures == ["refund_amount"] and plan.grain == "week"


def test_broken_down_by_a_dimension_names_no_value_of_it():
    plan = ground(QueryPlan(measures=["refund_count"]), MODEL, "refunds broken down by reason last month").plan
    assert plan.filters == [] and plan.dimensions == ["refund_reason"]


def test_a_sum_said_as_its_total():
    assert read(MODEL, "the 3 regions with the largest refund total last month").measures == ["refund_amount"]


def test_by_a_time_field_in_order_sorts_a_list_and_splits_nothing():
    from wenshu.semantic.listing import detail

    question = "上周取消的订单列一下，要订单号和下单时间，按下单时间先后排"
    plan = detail(MODEL, read(MODEL, question), question).plan
    assert (plan.records, plan.order_by, plan.order, plan.dimensions) == ("order", "order_date", "asc", [])


@pytest.mark.parametrize(("question", "values", "split"), [
    ("把男性会员也加进来放一起比一比", ["F", "M"], ["gender"]), ("male members too, side by side", ["F", "M"], ["gender"]),
    ("add male members too", ["F", "M"], []), ("男性会员呢", ["M"], []), ("换成男性会员也行", ["M"], []),
])  # fmt: skip
def test_a_value_added_also_keeps_the_one_filtered_and_compared_splits_by_it(question, values, split):
    from wenshu.semantic.edits import edit

    before = QueryPlan(measures=["buyers"], filters=[Filter(dimension="gender", values=["F"])])
    plan = edit(before, read(MODEL, question), None, question, MODEL)
    assert [(f.dimension, f.values) for f in plan.filters] == [("gender", values)] and plan.dimensions == split


@pytest.mark.parametrize(("question", "grain"), [
    ("Is web revenue growing month over month across the last 4 full months?", "month"),
    ("week-over-week GMV for the last 8 weeks", "week"), ("GMV year over year", None),
    ("last month's paid orders, month over month", None),  # one month: that month against the one before
])  # fmt: skip
def test_a_period_over_the_period_is_a_trend_by_it_compared_with_the_one_before(question, grain):
    m = read(MODEL, question)
    assert m.grain == grain and m.compare != "none"


@pytest.mark.parametrize(("question", "split", "order"), [
    ("这个月哪个渠道卖得最好", ["channel"], "desc"), ("本月华南有哪两个城市在拖后腿", ["city"], "asc"),
    ("Which region was doing worst last quarter?", ["region"], "asc"),
])  # fmt: skip
def test_a_ranking_that_names_no_measure_is_judged_by_the_headline(question, split, order):
    from wenshu.semantic.edits import edit
    from wenshu.semantic.mentions import headlined

    m = headlined(MODEL, read(MODEL, question), question)
    assert (m.measures, m.split, m.order) == ([MODEL.headline], split, order) and MODEL.headline == "gmv"
    unranked = MODEL.model_copy(update={"headline": None})
    assert read(MODEL, question).measures == headlined(unranked, read(unranked, question), question).measures == []
    before = QueryPlan(measures=["refund_rate"], dimensions=["region"])  # a follow-up keeps its plan's measure
    assert edit(before, read(MODEL, "worst two only"), None, "worst two only", MODEL).measures == ["refund_rate"]


def test_a_tier_number_before_its_kind_is_a_value_not_a_count_of_rows():
    from wenshu.semantic.listing import detail

    question = ("Show me this week's refunds over 1500 on orders shipped to tier-1 cities, biggest first - order id,"
                " city, refund time, amount, reason")
    m = read(MODEL, question)
    assert m.split == [] and read(MODEL, "GMV of the top 5 cities").split == ["city"]
    plan = detail(MODEL, m, question).plan
    assert plan.records == "refund" and plan.columns[:2] == ["order_id", "city"] and plan.order_by == "refund_amount"


def test_a_customer_name_among_the_fields_of_an_orders_list_is_a_field_not_the_customers():
    from wenshu.semantic.listing import detail

    question = "金卡会员最近10天付了款的单子里，实付3000以上的，按下单时间从新到旧排，要订单号、客户名、收货城市和实付金额"
    plan = detail(MODEL, read(MODEL, question), question).plan
    assert plan.records == "order" and plan.columns == ["order_id", "customer", "city", "pay_amount"]
    assert ("pay_amount", "gte", [3000]) in [(f.dimension, f.op, f.values) for f in plan.filters]


def test_order_value_by_category_is_the_lines_at_their_deal_price(demo_db_file):
    from wenshu.semantic.grounding import prefer_finer

    plan, notes = prefer_finer(QueryPlan(measures=["order_value"], dimensions=["category"]), MODEL)
    assert plan.measures == ["item_sales"] and notes[0]["instead_of"] == "order_value"
    with sqlite3.connect(demo_db_file) as conn:
        split = sum(v for _, v in conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql))
        whole = conn.execute(compile_plan(MODEL, QueryPlan(measures=["order_value"]), "sqlite", "en").sql).fetchone()[0]
    assert abs(split - whole) < 1  # an order's total is the sum of its lines


def test_a_city_filter_holding_the_city_tiers_label_is_dropped():
    from wenshu.semantic.grounding import ground

    chosen = QueryPlan(measures=["paid_orders"], filters=[Filter(dimension="city", values=["一线城市"]),
                                                          Filter(dimension="city_tier", values=["1"])])
    plan = ground(chosen, MODEL, "上周一线城市一共成交了多少笔已支付订单").plan
    assert [f.dimension for f in plan.filters if f.dimension.startswith("city")] == ["city_tier"]
