"""How business people type questions in English shorthand and in everyday words: a period over the period before with
no window named (WoW, MoM, 月环比) is the last complete period against the one before, "vs LY" a year-over-year
comparison, a share of several named values one share each, "how much of X was Y" a share with its amount, "count
and amount" both, "refunds over 2,000" the rows the bound names, and a measure per one of a ratio's denominator
units (单均件数, 人均) that ratio; "how did each region do" is the headline measure split, "this month vs last" the month
before, "as %" a share; terse follow-ups swap the split ("now by region"), drop it ("drop the channel split") or
sort by a measure already shown ("sort by orders instead"). Pure functions on the demo's bundled model, compiled
SQL run on a real demo database; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import Filter, QueryPlan, Window
from wenshu.semantic.windows import followup_window, plan_window

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str) -> QueryPlan:
    m = read(MODEL, question)
    got = ground(QueryPlan(measures=m.measures or ["gmv"]), MODEL, question)
    assert got.plan is not None, got.reason
    return got.plan


def window_of(phrase: str) -> tuple:
    return evaluate(find_windows(phrase)[0])


@pytest.mark.parametrize(("question", "period"), [
    ("is web revenue up or down WoW?", "last week"),
    ("paid orders, week-over-week", "last week"),
    ("AOV MoM by channel", "last month"),
    ("家电品类销售额的月环比", "last month"),
    ("QoQ GMV per region", "last quarter"),
    ("退款金额的同比", "last month"),  # a bare 同比 / 环比: the last complete month
    ("refund rate YoY", "last month"),
])  # fmt: skip
def test_a_period_over_the_one_before_with_no_window_is_the_last_complete_period(question, period):
    m = read(MODEL, question)
    got = plan_window(question, m.compare)
    assert m.compare != "none" and got is not None
    assert (got.start, got.end) == window_of(period)


def test_a_named_window_wins_and_a_follow_up_keeps_its_own():
    this_month = plan_window("GMV this month MoM", "previous")
    assert this_month is not None and (this_month.start, this_month.end) <= window_of("this month")
    before = Window.model_validate({"start": "2026-03-09", "end": "2026-03-16"})
    assert followup_window("and WoW?", before, read(MODEL, "and WoW?").compare) is None  # the previous window stays
    assert plan_window("GMV by channel", "none") is None  # no comparison: no window implied
    assert plan_window("每月退款金额的环比", "previous") is None  # a trend's periods are each compared: no month implied


def test_a_wow_question_compiles_to_last_week_against_the_week_before(demo_db_file):
    question = "Is app GMV up or down WoW?"
    plan = grounded(question).model_copy(update={"window": plan_window(question, read(MODEL, question).compare)})
    start, end = window_of("last week")
    with sqlite3.connect(demo_db_file) as conn:
        row = conn.execute(compile_plan(MODEL, plan).sql).fetchone()
        now, before = (conn.execute("SELECT SUM(pay_amount) FROM orders WHERE status = 1 AND channel = 'app'"
                                    " AND order_date >= date(?, ?) AND order_date < date(?, ?)", (a, shift, b, shift)
                                    ).fetchone()[0] for a, b, shift in ((start, end, "+0 days"),
                                                                       (start, end, "-7 days")))
    assert round(row[0], 2) == round(now, 2) and round(row[1], 2) == round(before, 2)


@pytest.mark.parametrize("question", ["What's our MTD GMV vs LY?", "web orders this quarter versus LY"])
def test_versus_ly_is_year_over_year(question):
    assert read(MODEL, question).compare == "yoy"


def test_only_ly_after_versus_is_last_year():
    assert read(MODEL, "GMV of the ugly sweaters this month").compare == "none"


def test_a_share_of_several_named_values_is_one_share_each(demo_db_file):
    plan = grounded("last month, what share of paid orders came from 华东 / 华北 / 华南?")
    assert plan.share and plan.dimensions == ["region"]
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compile_plan(MODEL, plan).sql).fetchall()
    assert {r[0] for r in rows} == {"华东", "华北", "华南"}
    assert 0 < sum(r[-1] for r in rows) < 100  # each of all regions' total, not of the three named alone


def test_how_much_of_a_total_one_value_was_is_its_share_with_its_amount():
    plan = grounded("How much of this month's GMV was the app?")
    assert plan.share and plan.value_too and [f.values for f in plan.filters] == [["app"]]
    assert not read(MODEL, "how much of the budget did we spend on ads").share  # no "was / came from": no share


def test_count_and_amount_of_rows_are_both_measures():
    assert grounded("refunds per reason last week, with count and amount").measures == ["refund_count", "refund_amount"]
    assert grounded("paid orders by channel: number and amount").measures == ["paid_orders", "gmv"]


@pytest.mark.parametrize(("question", "bound"), [
    ("Show me refunds over 1,500 from the last 10 days, largest first", 1500),
    ("上周超过3000元的退款", 3000),
])  # fmt: skip
def test_rows_a_bound_names_are_listed_largest_first(question, bound):
    listed = detail(MODEL, read(MODEL, question), question)
    assert listed is not None and listed.plan is not None
    plan = listed.plan
    assert plan.records == "refund" and plan.filters[0].values == [bound] and (plan.order, plan.order_by) == (
        "desc", "refund_amount")


@pytest.mark.parametrize("question", ["how many refunds over 2000 last week", "refund amount over 2000 by reason"])
def test_a_count_or_a_split_of_bounded_rows_is_no_list(question):
    assert detail(MODEL, read(MODEL, question), question) is None


@pytest.mark.parametrize(("question", "measures"), [
    ("近三个月每月的单均件数", ["units_per_order"]),  # 单均: per order, of the units named after it
    ("各渠道的客单价和平均每单的件数", ["aov", "units_per_order"]),
    ("上个月人均花了多少钱", ["spend_per_buyer"]),  # 人均: per buyer (人), money asked
    ("revenue per customer by channel this year", ["spend_per_buyer"]),  # the model's name for it, no customer split
])  # fmt: skip
def test_a_measure_per_one_denominator_unit_is_the_ratio(question, measures):
    plan = grounded(question)
    assert plan.measures == measures and "customer" not in plan.dimensions


def test_women_and_men_are_the_gender_values():
    assert read(MODEL, "GMV from women vs men last month").values == {"gender": ["F", "M"]}


@pytest.mark.parametrize(("question", "split", "values"), [
    ("How did each channel do last week?", ["channel"], {}),
    ("各大区上个月表现如何", ["region"], {}),
    ("how did the web channel do yesterday", [], {"channel": ["web"]}),
])  # fmt: skip
def test_how_members_did_with_no_measure_named_is_the_headline_measure(question, split, values):
    m = headlined(MODEL, read(MODEL, question), question)
    assert m.measures == [MODEL.headline] and m.split == split and {d: v for d, v in m.values.items()
                                                                     if d == "channel"} == values
    assert headlined(MODEL, read(MODEL, "how is it going"), "how is it going").measures == []  # nothing to split


def test_a_named_measure_is_kept_when_asking_how_members_did():
    question = "how did refunds do by reason last month"
    assert headlined(MODEL, read(MODEL, question), question).measures == ["refund_count"]


@pytest.mark.parametrize("question", ["paid orders this month vs last?", "GMV this week compared with last"])
def test_versus_last_alone_is_the_period_before(question):
    assert read(MODEL, question).compare == "previous"


def test_as_a_percent_sign_is_a_share():
    assert read(MODEL, "revenue by city tier last quarter, as %").share
    assert not read(MODEL, "orders last quarter versus last year").share


PREVIOUS = QueryPlan.model_validate({"measures": ["gmv", "paid_orders"], "dimensions": ["channel"],
                                     "window": {"start": "2026-11-23", "end": "2026-11-30"}})


def edited(question: str) -> QueryPlan | None:
    m = read(MODEL, question)
    return edit(PREVIOUS, m, followup_window(question, PREVIOUS.window, m.compare), question, MODEL)


@pytest.mark.parametrize(("question", "dimensions"), [
    ("now by region", ["region"]),  # swapped
    ("now split by gender", ["gender"]),
    ("break it down by city", ["channel", "city"]),  # a drill-down keeps the split it had
    ("drop the channel split", []),
    ("不要按渠道拆了", []),
    ("那城市等级的呢？", ["city_tier"]),  # what about …: instead of the split
    ("what about by member level?", ["member_level"]),
    ("那华东呢", ["channel"]),  # a value: a filter, the split stays
])  # fmt: skip
def test_a_terse_follow_up_swaps_adds_or_drops_the_split(question, dimensions):
    plan = edited(question)
    assert plan is not None and plan.dimensions == dimensions and plan.measures == PREVIOUS.measures


def test_the_other_members_of_a_filter_join_the_split_they_do_not_replace_it():
    previous = PREVIOUS.model_copy(update={"filters": [Filter(dimension="region", values=["华东"])]})
    question = "what about the other regions?"
    m = read(MODEL, question)
    plan = edit(previous, m, followup_window(question, previous.window, m.compare), question, MODEL)
    assert plan is not None and plan.dimensions == ["channel", "region"] and not plan.filters


@pytest.mark.parametrize("question", ["sort by orders instead", "rank by orders"])
def test_sorting_by_rows_already_counted_orders_by_that_count(question):
    plan = edited(question)
    assert plan is not None and (plan.order_by, plan.order, plan.measures) == ("paid_orders", "desc", PREVIOUS.measures)


def test_rows_named_without_a_sort_only_filter():
    plan = edited("only the orders thru app")
    assert plan is not None and plan.order_by is None and [f.values for f in plan.filters] == [["app"]]


@pytest.mark.parametrize(("question", "difference"), [
    ("上周的支付订单数比再前一周变化了多少？", True), ("GMV last month vs the month before, by how much?", True),
    ("Paid orders this quarter against the same quarter last year: what's the percent difference?", False),  # growth
    ("上周的订单量环比", False),  # the growth only
    ("上个月退款金额环比变化多少", False),  # 环比 names the change asked: the growth
])  # fmt: skip
def test_a_change_asked_as_an_amount_shows_the_difference_beside_the_growth(question, difference):
    assert grounded(question).difference is difference


def test_the_difference_is_the_periods_values_subtracted(demo_db_file):
    question = "上周的支付订单数比前一周变化了多少"
    plan = grounded(question).model_copy(update={"window": plan_window(question, "previous")})
    compiled = compile_plan(MODEL, plan, "sqlite", "zh")
    assert compiled.columns[-1].endswith("变化量")
    with sqlite3.connect(demo_db_file) as conn:
        now, before, _, moved = conn.execute(compiled.sql).fetchone()
    assert moved == now - before
    rate = compile_plan(MODEL, plan.model_copy(update={"measures": ["refund_rate"]}), "sqlite", "zh")
    assert len(rate.columns) == 3  # a rate's change is already a difference, in points


@pytest.mark.parametrize(("question", "categories"), [
    ("How much GMV did we book over the last 7 days?", []),  # "book" is what we did, not the books category
    ("How many units of books did we sell last month?", [["图书文具"]]),  # the category, named before "we"
])  # fmt: skip
def test_a_word_right_after_a_subject_is_a_verb_not_a_members_name(question, categories):
    plan = grounded(question)
    assert [f.values for f in plan.filters if f.dimension == "category"] == categories


def test_a_verb_with_its_particle_is_no_members_name():
    plan = grounded("How much in refunds was paid out last month?")  # disbursed: not the paid orders' status
    assert plan.measures == ["refund_amount"] and plan.filters == []


def test_a_total_against_an_earlier_period_in_percent_is_its_growth_not_a_share():
    plan = grounded("How is this quarter's revenue tracking against the same quarter last year, in % terms?")
    assert plan.compare == "yoy" and not plan.share


def test_order_in_a_list_of_fields_names_the_field_not_a_sort():
    plan = grounded("Paid orders over 9k yesterday: list order ID, customer name, order channel and amount paid")
    assert plan.records == "order" and "channel" in plan.columns and not plan.dimensions
    assert grounded("Last month, order the categories by refund rate").dimensions == ["category"]


def test_a_change_asked_in_percent_is_no_share_and_the_rows_bounded_are_no_count():
    plan = grounded("Week over week, how did orders on each channel move last week, in percent?")
    assert plan.compare == "week" and plan.dimensions == ["channel"] and not plan.share  # the change, in percent
    assert grounded("Each channel's share of GMV last week, week over week").share  # a share said as one
    plan = grounded("What share of last month's GMV came from paid orders of more than 3k each?")
    assert plan.measures == ["gmv"] and plan.share and plan.share_only()  # "paid orders …": the rows, no count


def test_sales_regions_are_regions_and_money_earned_the_most_ranks_by_the_headline():
    plan = grounded("Which two sales regions had the highest AOV last month?")
    assert plan.measures == ["aov"] and plan.dimensions == ["region"] and plan.limit == 2  # no "sales" measure
    question = "Among male customers, which three categories earned us the most last month?"
    m = headlined(MODEL, read(MODEL, question), question)
    plan = ground(QueryPlan(measures=["gmv"]), MODEL, question, mentions=m).plan
    assert plan is not None and plan.dimensions == ["category"] and plan.limit == 3 and plan.order == "desc"
    assert plan.filters == [Filter(dimension="gender", values=["M"])]


def test_distinct_customers_with_a_purchase_are_the_buyers_and_a_split_by_gender_stays():
    plan = grounded("Count the distinct customers with a paid purchase last week, men and women separately.")
    assert plan.measures == ["buyers"] and plan.dimensions == ["gender"]
    assert ground(QueryPlan(measures=["gmv"]), MODEL, "How many customers are there?").plan is None  # the table's rows
