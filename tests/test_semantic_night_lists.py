"""A list asked the way people talk: 昨晚 / 今晚 / 前晚 and "last night" are that day (and their clock hours are
evening hours), 拉出来 asks for rows, and a question word inside an enumeration of fields ("要订单号、发到哪个城市、
付了多少") asks for that field's value, not a count or one member. Questions written here, read on the demo's
bundled model."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from demo_reading import MODEL
from wenshu.knowledge.clock_hours import hours_said
from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.fields import fields_asked
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import read


@pytest.mark.parametrize("said,back", [("昨晚的订单", 1), ("orders placed last night", 1), ("今晚的订单", 0), ("前晚的订单", 2)])
def test_an_evening_word_names_its_day(said, back):
    (window,) = find_windows(said)
    day = date.today() - timedelta(days=back)
    assert evaluate(window) == (day, day + timedelta(days=1))


def test_an_hour_after_an_evening_word_is_in_the_evening():
    assert hours_said("昨晚9点以后下的单").hours == (21, 22, 23)
    assert hours_said("前晚10点之后").hours == (22, 23)


def test_question_words_inside_a_list_of_fields_are_blanked_and_nothing_else_is():
    said = "把前晚10点后付款的单子拉出来，要订单号、发到哪个城市、付了多少"
    asked = fields_asked(said)
    assert len(asked) == len(said) and "哪个" not in asked and "多少" not in asked and asked.startswith("把前晚")
    assert fields_asked("哪个城市的订单最多，要多少单") == "哪个城市的订单最多，要多少单"  # no list of fields


def test_a_list_pulled_out_with_fields_asked_by_question_words_is_a_detail_list():
    question = fields_asked("把前晚10点后成交的单子拉出来，要订单号、发到哪个城市、实付多少")
    listed = detail(MODEL, read(MODEL, question), question)
    assert listed is not None and listed.plan is not None, listed
    plan = listed.plan
    assert plan.records == "order" and plan.columns == ["order_id", "city", "pay_amount"]
    assert {(f.dimension, tuple(f.values)) for f in plan.filters} == {("order_status", ("1",)), ("order_hour", ("22", "23"))}
