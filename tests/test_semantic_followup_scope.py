"""Follow-ups that say which rows or which earlier period without changing what is measured: "orders shipped to
first-tier cities" after refunds by reason filters the orders those refunds are of; "put the four weeks before
that alongside" compares, "and the week before that?" moves the window. Read from the question's words on the
demo's bundled model; the questions are written here."""

from __future__ import annotations

from demo_reading import edited, planned
from wenshu.semantic.plan import QueryPlan


def test_a_follow_up_naming_the_orders_refunds_are_of_filters_them_and_keeps_the_refunds():
    before = planned("last month's refund count and refund amount by reason").model_dump()
    after = edited(before, "Narrow that down to orders shipped to first-tier cities.")
    assert after.measures == ["refund_count", "refund_amount"] and [f.values for f in after.filters] == [["1"]]
    assert after.via == []  # shipped to: the delivery city


def test_the_periods_before_put_alongside_compare_and_asked_alone_move_the_window():
    before = planned("top 3 brands by revenue over the last four full weeks").model_dump()
    side = edited(before, "Put the four weeks before that alongside, with the % change for each of those three.")
    assert side.compare == "previous" and side.window == QueryPlan.model_validate(before).window
    week = planned("top 3 brands by revenue last week").model_dump()
    moved = edited(week, "and the week before that?")
    assert moved.compare == "none" and moved.window.end == QueryPlan.model_validate(week).window.start


def test_a_follow_up_keeping_one_member_of_the_split_drops_that_column_and_keeps_the_rest():
    before = planned("过去两周按会员等级和性别分的客单价").model_dump()
    assert set(QueryPlan.model_validate(before).dimensions) == {"member_level", "gender"}
    after = edited(before, "只留金卡会员的")
    assert after.dimensions == ["gender"] and [(f.dimension, f.values) for f in after.filters] == [("member_level", ["2"])]
    both = edited(before, "只留金卡和钻石会员的")  # two members: still a column to tell them apart
    assert set(both.dimensions) == {"member_level", "gender"}
    drilled = edited(planned("last month's GMV by region").model_dump(), "only East China, city by city")
    assert drilled.dimensions == ["city"]
    shares = edited(planned("各大区上个月的GMV占比").model_dump(), "只看华东的")
    assert shares is None or shares.dimensions == ["region"]
