"""Readings of the demo's bundled model that blind set biz28 showed were missed, each worded here: 下单量 counts paid
orders (the business convention for order counts), 客单 is the average order value, "sales volume" the units and a
share of visitors that placed paid orders the conversion rate; the rows a per-person average is over, said as a topic
("下过单的客户里，平均每人…"), are no count and no split; a list's field said with a status word ("the date refunded") is
a field, not a status filter; a follow-up drops members ("Remove the app orders from that"), sets a month without a
year beside the earlier one, in that one's year, or moves to a day of the earlier week ("那周的周四呢")."""

from __future__ import annotations

from demo_reading import MODEL, edited, grounded, planned
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import headlined, read


def test_order_counts_said_as_placed_are_paid_orders_and_short_words_name_their_measures():
    assert grounded("上周各渠道的下单量").measures == ["paid_orders"]
    assert grounded("上周各状态的全部订单数").measures == ["all_orders"]
    assert grounded("上个月华北的客单是多少").measures == ["aov"]
    assert grounded("What was the sales volume of each brand last week?").measures == ["units_sold"]


def test_a_per_person_average_over_a_topic_is_no_count_and_no_split():
    question = "这个季度下过单的客户里，平均每人花了多少钱？"
    assert grounded(question).measures == ["spend_per_buyer"]
    plan = grounded(question, {"measures": ["buyers", "spend_per_buyer"], "dimensions": ["customer"]})
    assert plan.measures == ["spend_per_buyer"] and plan.dimensions == []  # each buyer's own is no average
    asked = grounded("这个季度下过单的客户有多少，平均每人花了多少钱？")
    assert asked.measures == ["buyers", "spend_per_buyer"]  # how many asked too


def test_a_field_said_with_a_status_word_is_a_field_not_a_status():
    question = "List refunds above 3000 yuan from the past two weeks: the order number, the date refunded and why."
    m = headlined(MODEL, read(MODEL, question), question)
    listed = detail(MODEL, m, question)
    assert listed is not None and listed.plan is not None
    assert listed.plan.columns == ["order_id", "refund_date", "refund_reason"]
    assert [f.dimension for f in listed.plan.filters] == ["refund_amount"]  # no refunded-orders filter


def test_a_follow_up_removes_members_and_keeps_the_rate():
    before = planned("What was the refund rate of each channel on orders from the past 60 days?").model_dump(mode="json")
    after = edited(before, "Remove the app orders from that.")
    assert after.measures == ["refund_rate"] and after.dimensions == ["channel"]
    assert [(f.dimension, f.op, f.values) for f in after.filters] == [("channel", "not_in", ["app"])]


def test_a_month_set_beside_the_earlier_one_is_in_its_year_and_compared_with_it():
    first = planned("去年9月各品类的销量")
    after = edited(first.model_dump(mode="json"), "把8月的放在旁边一起看看，算一下变化")
    assert after.window == first.window and after.compare == "previous"  # August of last year, beside September
    after = edited(first.model_dump(mode="json"), "Put August of that year next to it.")
    assert after.window == first.window and after.compare == "previous"


def test_a_day_of_the_earlier_weeks_week_moves_the_window_to_that_day():
    first = planned("上周二各品类的销量")
    for said in ("那周的周四呢", "What about the Thursday of that week?"):
        after = edited(first.model_dump(mode="json"), said)
        assert (after.window.start - first.window.start).days == 2 and (after.window.end - after.window.start).days == 1


def test_a_share_of_visitors_that_became_paid_orders_is_the_conversion_rate():
    plan = planned("What percentage of web visitors went on to place a paid order each day last week?")
    assert plan.measures == ["conversion_rate"] and plan.grain == "day" and not plan.share
    assert planned("What percentage of orders were cancelled last month?").measures == ["cancel_rate"]


def test_a_month_moved_to_without_a_year_is_the_whole_month_of_the_earlier_windows_year():
    first = planned("去年11月各品类的销量")
    after = edited(first.model_dump(mode="json"), "那12月呢")
    assert (after.window.start.year, after.window.start.month, after.window.start.day) == (first.window.start.year, 12, 1)
    assert (after.window.end - after.window.start).days == 31  # all of it, not up to today's date
