"""A count asked by the event that makes its rows ("今年上半年注册了多少人", "how many people signed up"): the event is
what the count's own time column is named for (the demo's 注册日期 / "registration date" / "sign-up date": the new
customers), and only where one count of its table has that column (下单 dates every count of orders: none). The
members such a count holds keep a clause on what they did ("people who registered …, how many never ordered"). Read
from the question's words on the demo's bundled model, compiled and run on a real demo database; the questions are
written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, planned

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.events import event_count
from wenshu.semantic.model import parse_model
from wenshu.semantic.presence import said_presence


@pytest.mark.parametrize("question", [
    "去年下半年每个月注册了多少人？", "How many people registered in March last year?",
    "How many people have signed up since the start of the year?",
])  # fmt: skip
def test_a_count_asked_by_its_event_is_the_count_that_event_dates(question):
    assert event_count(MODEL, question) == "new_customers"
    assert planned(question).measures == ["new_customers"]


@pytest.mark.parametrize("question", ["上个月下单了多少次", "上个月注册的客户下了多少单", "注册日期是哪天"])
def test_an_event_many_counts_share_or_a_question_that_counts_nothing_names_none(question):
    assert event_count(MODEL, question) is None or planned(question).measures != ["new_customers"]


def test_the_event_is_read_from_the_models_own_names_not_a_word_list():
    text = MODEL.model_dump(mode="json", exclude_none=True, by_alias=True)
    for d in text["dimensions"]:
        if d["id"] == "register_date":
            d.update(zh="开户日期", en="account opening date", synonyms=[])
    renamed = parse_model(__import__("yaml").safe_dump(text, allow_unicode=True))
    assert event_count(renamed, "去年开户了多少人") == "new_customers"
    assert event_count(renamed, "去年注册了多少人") is None


def test_the_members_an_event_counts_keep_what_they_did_not_do(demo_db_file):
    question = "去年注册的那些人里，有多少个一单都没下过？"
    said = said_presence(MODEL, question)
    assert said is not None and said.members == ["customers"] and said.counted == "new_customers"
    plan = planned(said.rest).model_copy(update={"presence": said.presence})  # the rest read as usual
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan).sql).fetchone()[0]
        want = conn.execute("""SELECT COUNT(*) FROM customers c WHERE c.register_date >= date('now', 'start of year',
            '-1 year') AND c.register_date < date('now', 'start of year') AND NOT EXISTS (SELECT 1 FROM orders o
            WHERE o.customer_id = c.customer_id AND o.status = 1)""").fetchone()[0]
    assert got == want and got > 0
