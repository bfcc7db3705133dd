"""Questions as people type them to a data assistant: two members named and counted (华东跟西南两个区: those two, no top
two), each member's value asked and then which is the top (every member, the top first), a top N with a measure
added ("just the top 4, plus …": no bound of 4), rows asked for with their fields after a total, ranges between named
days, the first quarters of a year, a weekday of the week before last, "this Monday through today". Read from the
question's words on the demo's bundled model; the questions are written here."""

from __future__ import annotations

from datetime import timedelta

import pytest

from demo_reading import MODEL, edited, planned

from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.mentions import read
from wenshu.semantic.windows import question_window

LAST_MONTH = {"start": "2026-05-01", "end": "2026-06-01"}


def test_members_named_and_counted_are_those_members_not_a_top_n():
    got = edited({"measures": ["gmv"], "dimensions": ["region", "channel"], "window": LAST_MONTH}, "只看华北和华南这两个大区")
    assert got.limit is None and got.filters[0].values == ["华北", "华南"]


@pytest.mark.parametrize("question", ["上个月各品类的销量是多少？哪个最多", "Units sold by brand last month, and which one sold the most?"])
def test_each_members_value_then_which_is_top_is_every_member_ranked(question):
    plan = planned(question)
    assert plan.limit is None and plan.order == "desc" and plan.dimensions
    filled = {"measures": plan.measures, "dimensions": plan.dimensions, "limit": 1, "order": "desc"}
    assert planned(question, filled).limit is None  # the model's one member is not what was asked


def test_which_member_alone_is_still_the_one_member():
    assert planned("上个月跟前一个月比，哪个渠道的订单量涨得最多？").limit == 1


def test_a_top_n_with_a_measure_added_is_no_bound():
    before = {"measures": ["item_sales"], "dimensions": ["brand"], "window": LAST_MONTH, "order": "desc"}
    got = edited(before, "just the top 4, plus units sold")
    assert got.limit == 4 and got.measures == ["item_sales", "units_sold"] and not got.filters


def test_rows_asked_for_with_their_fields_after_a_total_list_those_fields():
    before = {"measures": ["refund_count", "refund_amount"], "window": LAST_MONTH}
    got = edited(before, "把明细拉出来，要退款时间、金额和原因")
    assert got.records == "refund" and {"refund_time", "refund_amount", "refund_reason"} <= set(got.columns)
    assert read(MODEL, "上周退了几单").measures == ["refund_count"]  # 退了几单: refunds, not paid orders


def test_ranges_and_periods_said_the_way_people_type_them():
    between = question_window("去年双十二到圣诞节之间每天的GMV")
    assert (between.start.month, between.start.day, between.end.month, between.end.day) == (12, 12, 12, 26)
    first = question_window("去年前两个季度的订单量")
    assert (first.start.month, first.end.month, (first.end - first.start).days > 170) == (1, 7, True)
    week_before = question_window("上上周三的退款")
    last = question_window("上周三的退款")
    assert week_before.start == last.start - timedelta(days=7) and (week_before.end - week_before.start).days == 1
    monday = question_window("GMV from this Monday through today")
    today = evaluate(find_windows("today")[0])[0]
    assert monday.start.weekday() == 0 and monday.start <= today < monday.end == today + timedelta(days=1)


def test_a_day_against_the_same_day_a_week_before_is_that_comparison_whatever_word_said_it():
    plan = planned("上周三的订单量跟上上周三比，环比怎么样")
    assert plan.compare == "week" and (plan.window.end - plan.window.start).days == 1
    assert planned("QTD orders vs this time last year").compare == "yoy"


@pytest.mark.parametrize(("question", "split"), [("city tier AOV last month", "city_tier"), ("brand revenue last week", "brand")])
def test_an_english_dimension_name_right_before_a_measure_splits_by_it(question, split):
    assert read(MODEL, question).split == [split]


def test_one_day_a_year_before_is_the_same_date_even_on_a_monday():
    from datetime import date

    from wenshu.semantic.plan import Window

    monday = Window(start=date(2026, 12, 7), end=date(2026, 12, 8))
    assert monday.shifted("yoy") == Window(start=date(2025, 12, 7), end=date(2025, 12, 8))
    week = Window(start=date(2026, 11, 30), end=date(2026, 12, 7))
    assert week.shifted("yoy").start == date(2025, 12, 1)  # a week: 52 back, Monday to Monday
