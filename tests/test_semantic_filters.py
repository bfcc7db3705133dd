"""Filters said the way people say them: a record's rows after its word and a word for rows (退款的明细, 退了款的),
a status left out of a count or a total ("除了已取消的", "excluding refunded orders"), the top N of another
dimension's value ("the top 5 tier-1 cities", "十个消费最多的金卡会员" by customer), 过千 / 破万 bounds, 最近一周 as seven
days, a value named by its first two characters and 类, a leading scope that stays in a share's whole, a week
compared with the same week a year before (52 weeks back), and follow-ups that let one filter go ("across all
channels", 不限性别了, "forget the tier-1 filter"). Pure functions on the demo's bundled model, a value index read
from a real demo database; the questions are written here."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

import pytest

from wenshu.knowledge.introspect import datasource_engine, read_catalog
from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.knowledge.value_index import ValueEntry, ValueIndex, class_words
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan, Window
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.windows import followup_window

MODEL = parse_model(bundled_text("demo"))


@pytest.fixture(scope="module")
def values(demo_db_file) -> ValueIndex:
    return ValueIndex.from_catalog(read_catalog(datasource_engine("demo", f"sqlite:///{demo_db_file}"), "demo"))


def grounded(question: str, index: ValueIndex | None = None) -> QueryPlan:
    hits = [h.as_dict() for h in index.match(question)] if index is not None else []
    m = read(MODEL, question, hits)
    got = ground(QueryPlan(measures=m.measures or ["gmv"]), MODEL, question, hits)
    assert got.plan is not None, got.reason
    return got.plan


def filters(plan: QueryPlan) -> dict:
    return {f.dimension: (f.op, f.values) for f in plan.filters}


@pytest.mark.parametrize("question", ["本周退款的明细", "本周因为物流太慢退了款的记录有哪些", "昨天退的款都列出来"])
def test_a_records_word_before_a_word_for_rows_lists_that_record(question):
    plan = grounded(question)
    assert plan.records == "refund" and "order_status" not in filters(plan)


def test_a_status_word_with_its_rows_still_lists_orders():
    plan = grounded("本周退款的订单有哪些")
    assert plan.records == "order" and filters(plan)["order_status"] == ("in", ["3"])


@pytest.mark.parametrize("question", ["本周除了已取消的一共下了多少单", "这个月已取消的除外，订单有多少单"])
def test_a_count_that_leaves_a_status_out_counts_every_other_status(question):
    plan = grounded(question)
    assert plan.measures == ["all_orders"] and filters(plan)["order_status"] == ("not_in", ["2"])


def test_excluding_a_status_named_with_its_rows_filters_it_out():
    plan = grounded("web revenue this quarter, excluding cancelled orders")
    assert plan.measures == ["gmv"] and filters(plan)["order_status"] == ("not_in", ["2"])


@pytest.mark.parametrize(("question", "split", "dimension"), [
    ("the top 4 tier-2 cities by revenue this year", "city", "city_tier"),
    ("本季度销售额最高的3个一线城市", "city", "city_tier"),
    ("the 5 biggest-spending diamond members this month", "customer", "member_level"),
])  # fmt: skip
def test_the_top_n_of_another_dimensions_value_ranks_by_that_dimension(question, split, dimension):
    plan = grounded(question)
    assert plan.dimensions == [split] and dimension in filters(plan) and plan.limit and plan.limit > 1


def test_a_value_and_its_kind_with_another_dimension_ranked_stay_a_filter():
    plan = grounded("the top 2 channels by revenue this year for male shoppers in tier-1 cities")
    assert plan.dimensions == ["channel"] and {"gender", "city_tier"} <= set(filters(plan))
    assert grounded("revenue of tier-1 cities this year").dimensions == []  # no rank: the tier's total


@pytest.mark.parametrize(("text", "op", "value"), [("金额过千的订单", "gt", 1000), ("销售额破万的城市", "gt", 10000)])
def test_a_round_number_word_is_a_bound(text, op, value):
    (t,) = thresholds(text)
    assert (t.op, t.value) == (op, value)


def test_the_last_week_in_chinese_is_seven_days_and_two_weeks_are_whole_weeks():
    start, end = evaluate(find_windows("近一周的订单")[0])
    assert (end - start).days == 7 and end - timedelta(days=1) == evaluate(find_windows("今天")[0])[0]
    two = find_windows("最近两周的订单")[0]
    assert "weekday 0" in two.start  # whole Monday-to-Sunday weeks


def test_a_value_is_named_by_its_first_two_characters_and_lei():
    entries = [ValueEntry("categories", "category_name", v, v) for v in ("母婴玩具", "美妆个护", "手机数码", "手机配件")]
    added = {e.label: e.value for e in class_words(entries)}
    assert added == {"母婴类": "母婴玩具", "美妆类": "美妆个护"}  # 手机类 could be either: not added


def test_a_value_named_with_lei_filters_by_it(values):
    plan = grounded("本月美妆类各品牌的商品销售额", values)
    assert filters(plan)["category"] == ("in", ["美妆个护"])


def test_a_leading_scope_stays_in_the_whole_of_a_share(values, demo_db_file):
    plan = grounded("In North China, what share of this year's revenue came from orders of 3k or more?", values)
    assert plan.share and plan.share_within == ["region"]
    sql = compile_plan(MODEL, plan.model_copy(update={"window": Window(start=date(2025, 1, 1), end=date(2025, 7, 1))}),
                       "sqlite", "en").sql
    with sqlite3.connect(demo_db_file) as conn:
        (share,) = conn.execute(sql).fetchone()
        part, whole = conn.execute(
            "SELECT SUM(CASE WHEN o.pay_amount >= 3000 THEN o.pay_amount END), SUM(o.pay_amount) FROM orders o "
            "JOIN cities c ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id "
            "WHERE o.status = 1 AND r.region_name = '华北' AND o.order_date >= '2025-01-01' AND o.order_date < '2025-07-01'"
        ).fetchone()
    assert share == round(100.0 * part / whole, 2)


def test_a_week_compared_with_a_year_before_is_the_same_week_52_weeks_back():
    week = Window(start=date(2026, 3, 9), end=date(2026, 3, 16))  # Monday to Sunday
    assert week.shifted("yoy") == Window(start=date(2025, 3, 10), end=date(2025, 3, 17))
    month = Window(start=date(2026, 3, 1), end=date(2026, 4, 1))
    assert month.shifted("yoy") == Window(start=date(2025, 3, 1), end=date(2025, 4, 1))


def edited(previous: dict, question: str) -> QueryPlan | None:
    before = QueryPlan.model_validate(previous)
    m = read(MODEL, question)
    return edit(before, m, followup_window(question, before.window, m.compare), question, MODEL)


@pytest.mark.parametrize("question", ["and across all channels?", "不限渠道了呢", "forget the app filter"])
def test_a_follow_up_lets_one_filter_go_and_keeps_the_others(question):
    got = edited({"measures": ["gmv"], "filters": [{"dimension": "channel", "values": ["app"]},
                                                   {"dimension": "region", "values": ["华南"]}]}, question)
    assert got is not None and filters(got) == {"region": ("in", ["华南"])} and got.dimensions == []


def test_letting_one_filter_go_while_adding_another():
    got = edited({"measures": ["paid_orders"], "dimensions": ["channel"], "share": True,
                  "filters": [{"dimension": "gender", "values": ["F"]}]}, "same but for North China, drop the women filter")
    assert got is not None and filters(got) == {"region": ("in", ["华北"])} and got.dimensions == ["channel"]


@pytest.mark.parametrize(("question", "order"), [("web orders this month, most recent first", "desc"),
                                                 ("本周的退款，按时间顺序", "asc")])
def test_rows_named_with_an_order_in_time_are_listed_in_it(question, order):
    plan = grounded(question)
    assert plan.records and plan.order == order and not plan.measures
    assert grounded("how many refunds this month, newest first").records is None  # a count asked: no list


@pytest.mark.parametrize(("question", "rate"), [("今年被取消的订单占比是多少", "cancel_rate"),
                                                ("去年取消的订单占多少比例", "cancel_rate")])
def test_a_share_of_rows_with_a_status_is_the_rate_with_no_filter_on_its_whole(question, rate, demo_db_file):
    plan = grounded(question)
    assert plan.measures == [rate] and "order_status" not in filters(plan)  # the status is the rate's numerator's
    sql = compile_plan(MODEL, plan, "sqlite", "zh").sql
    with sqlite3.connect(demo_db_file) as conn:
        (value,) = conn.execute(sql).fetchone()
    assert 0 < value < 100


def test_members_asked_after_the_dimensions_name_split_by_it():
    plan = grounded("今年销售额超过50万的城市有哪些")
    assert plan.dimensions == ["city"] and plan.having and plan.having[0].values == [500000]


def test_a_sum_averaged_over_the_rows_a_ratio_counts_is_that_ratio():
    plan = grounded("本月各渠道订单的平均实付金额")
    assert plan.measures == ["aov"] and plan.dimensions == ["channel"]
    assert grounded("本月各渠道的实付金额").measures == ["gmv"]  # no average: the sum


def test_several_values_each_counted_with_ji_split_by_their_dimension():
    plan = grounded("本月app、小程序各成交了几单")
    assert plan.dimensions == ["channel"] and plan.measures == ["paid_orders"]


def test_an_amount_asked_of_each_share_is_the_money_measure():
    plan = grounded("本月男性用户的退款按退款原因分，金额各占多少")
    assert plan.measures == ["refund_amount"] and plan.share and plan.dimensions == ["refund_reason"]


@pytest.mark.parametrize(("question", "rate"), [("今年华北区取消订单的占比", "cancel_rate"),
                                                ("今年华北区退款订单的比例", "refund_rate")])
def test_a_counts_rows_named_with_their_share_are_the_rate(question, rate):
    plan = grounded(question)
    assert plan.measures == [rate] and set(filters(plan)) == {"region"}


@pytest.mark.parametrize(("question", "split"), [("今年销售额最高的城市", "city"), ("去年销量最多的品牌", "brand")])
def test_a_superlative_right_before_a_dimension_picks_its_one_member(question, split):
    plan = grounded(question)
    assert plan.dimensions == [split] and plan.limit == 1 and plan.order == "desc"
    assert grounded("今年销售额最高的4个城市").limit == 4


def test_the_rows_behind_a_count_are_listed_with_its_filters(demo_db_file):
    count = {"measures": ["paid_orders"], "window": {"start": "2025-03-01", "end": "2025-04-01"},
             "filters": [{"dimension": "channel", "values": ["web"]},
                         {"dimension": "orders.pay_amount", "op": "gt", "values": [2500]}]}
    got = edited(count, "把这些单子列出来")
    assert got is not None and got.records == "order" and got.measures == ["paid_orders"]
    sql = compile_plan(MODEL, got, "sqlite", "zh").sql
    with sqlite3.connect(demo_db_file) as conn:
        ids = {r[0] for r in conn.execute(sql)}
        want = {r[0] for r in conn.execute(
            "SELECT order_id FROM orders WHERE status = 1 AND channel = 'web' AND pay_amount > 2500 "
            "AND order_date >= '2025-03-01' AND order_date < '2025-04-01'")}
        assert ids == want and want
    assert "orders.pay_amount" not in sql and '"pay_amount" AS' in sql  # the amount it was bounded by is shown
    split = edited(count, "那华东有哪些城市")  # a dimension named: a split of the count, no rows
    assert split is not None and split.records is None and split.dimensions == ["city"]


def test_a_list_bounded_on_an_amount_shows_that_amount_in_place_of_its_own():
    plan = grounded("本周实付超过2000的订单有哪些")
    sql = compile_plan(MODEL, plan, "sqlite", "zh").sql
    assert '"orders"."pay_amount" AS' in sql and "total_amount" not in sql


def test_bi_qi_before_the_period_before_is_a_comparison():
    assert grounded("本月家用电器的销售额，比起上个月怎么样").compare == "previous"


def test_of_two_ranked_values_kinds_the_first_is_ranked():
    plan = grounded("top 4 家用电器 products among female shoppers this year by revenue")
    assert plan.dimensions == ["product"] and {"gender", "category"} <= set(filters(plan))


@pytest.mark.parametrize(("question", "compare"), [
    ("今年二季度和去年二季度的销售额对比", "yoy"),
    ("本月的退款金额比上个月多了多少", "previous"),
    ("最近14天的订单量，和前14天比", "previous"),
])  # fmt: skip
def test_two_named_periods_compared_are_a_comparison(question, compare):
    assert grounded(question).compare == compare
    assert grounded("上个月和这个月的销售额").compare == "none"  # both named, nothing compared


def test_show_me_rows_lists_them_and_show_me_a_measure_does_not():
    plan = grounded("show me this week's cancelled orders")
    sql = compile_plan(MODEL, plan, "sqlite", "en").sql
    assert plan.records == "order" and ('"status" = 2' in sql or "\"status\" IN ('2')" in sql)
    assert grounded("show me refund amount by reason this month").records is None
    assert grounded("show me how many orders were cancelled today").records is None


def test_a_list_bounded_on_the_amount_paid_keeps_the_paid_rows(demo_db_file):
    plan = grounded("上个月实付超过3000的订单有哪些")
    sql = compile_plan(MODEL, plan.model_copy(update={"window": Window(start=date(2025, 5, 1), end=date(2025, 6, 1))}),
                       "sqlite", "zh").sql
    with sqlite3.connect(demo_db_file) as conn:
        got = {r[0] for r in conn.execute(sql)}
        want = {r[0] for r in conn.execute("SELECT order_id FROM orders WHERE status = 1 AND pay_amount > 3000 AND "
                                           "order_date >= '2025-05-01' AND order_date < '2025-06-01'")}
    assert got == want and want  # refunded orders paid too: not listed as paid


@pytest.mark.parametrize("question", ["what did the mini-program make this month", "how much did we bring in this year"])
def test_money_made_said_with_a_verb_is_the_headline_measure(question):
    m = headlined(MODEL, read(MODEL, question), question)
    assert m.measures == [MODEL.headline]
    assert headlined(MODEL, read(MODEL, "what did the app make in orders"), "x").measures == ["paid_orders"]


@pytest.mark.parametrize(("question", "measure", "split", "grain"), [
    ("本月退款最多的原因是什么", "refund_count", ["refund_reason"], None),
    ("本月订单最多的那天是几号", "paid_orders", [], "day"),
])  # fmt: skip
def test_rows_said_before_most_are_counted_and_ranked(question, measure, split, grain):
    plan = grounded(question)
    assert plan.measures == [measure] and plan.dimensions == split and plan.grain == grain and plan.limit == 1


def test_members_named_after_a_bound_on_their_total_are_kept_by_it():
    plan = grounded("今年客单价超过400的城市")
    assert plan.dimensions == ["city"] and plan.having and plan.having[0].dimension == "aov"


def test_the_day_before_yesterday_compared_with_yesterday():
    assert grounded("昨天的订单量和前天比怎么样").compare == "previous"


def test_the_classifier_for_cities_marks_a_split_as_the_others_do():
    plan = grounded("今年新一线里，销售额最高的是哪几座城市")
    assert plan.dimensions == ["city"] and filters(plan)["city_tier"] == ("in", ["2"])
