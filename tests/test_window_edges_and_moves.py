"""The first or last N days of last or this month or week (上个月最后七天, 上周前三天, "the last 7 days of last month"),
days named by a holiday with a fixed date (妇女节, 儿童节, 五一假期, Valentine's Day) and a follow-up that moves the
previous window by days, weeks or months keeping its length ("往后挪一天", "shift that back two weeks")."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from demo_reading import edited
from wenshu.knowledge.time_phrases import evaluate, find_windows


def _one(question: str) -> tuple[date, date]:
    (window,) = find_windows(question)
    return evaluate(window)


def _month_start(d: date, back: int = 0) -> date:
    year, month = divmod(d.year * 12 + d.month - 1 - back, 12)
    return date(year, month + 1, 1)


def test_the_last_days_of_last_month_end_where_this_month_starts():
    start, end = _one("上个月最后七天的退款笔数")
    assert end == _month_start(date.today()) and (end - start).days == 7
    assert _one("the last 7 days of last month") == (start, end)
    assert _one("上个月后5天")[0] == end - timedelta(days=5)
    rolling = _one("the last 7 days")
    assert (rolling[1] - rolling[0]).days == 7 and rolling[1] > end  # the last 7 days up to today


def test_the_first_days_of_a_week_or_month():
    monday = date.today() - timedelta(days=date.today().weekday() + 7)
    assert _one("上周前三天（周一到周三）的订单") == (monday, monday + timedelta(days=3))
    assert _one("last week's first three days") == (monday, monday + timedelta(days=3))
    assert _one("上周最后两天") == (monday + timedelta(days=5), monday + timedelta(days=7))
    first = _month_start(date.today(), 1)
    assert _one("the first ten days of last month") == (first, first + timedelta(days=10))


@pytest.mark.parametrize("said,month,day,days", [
    ("去年三八妇女节那天", 3, 8, 1), ("去年六一儿童节那天", 6, 1, 1), ("去年五一假期", 5, 1, 5), ("去年劳动节", 5, 1, 1),
    ("on Valentine's Day last year", 2, 14, 1), ("International Women's Day last year", 3, 8, 1),
])  # fmt: skip
def test_holidays_with_a_fixed_date_are_that_day_of_the_year_said(said, month, day, days):
    start, end = _one(said)
    assert start == date(date.today().year - 1, month, day) and (end - start).days == days


@pytest.mark.parametrize("said,days", [("往后挪一天看看", 1), ("再往前推两天", -2), ("晚一周呢", 7), ("Move it a day later.", 1),
                                       ("shift that back two weeks", -14), ("往后推三天", 3)])  # fmt: skip
def test_a_follow_up_moves_the_window_by_days_or_weeks(said, days):
    before = {"measures": ["paid_orders"], "dimensions": ["channel"], "window": {"start": "2026-11-30", "end": "2026-12-01"}}
    plan = edited(before, said)
    assert plan is not None and plan.dimensions == ["channel"]
    assert (plan.window.start, plan.window.end) == (date(2026, 11, 30) + timedelta(days=days),
                                                    date(2026, 12, 1) + timedelta(days=days))


def test_a_move_by_months_keeps_whole_months_whole_and_other_windows_their_length():
    month = edited({"measures": ["gmv"], "window": {"start": "2026-10-01", "end": "2026-11-01"}}, "往后挪一个月呢")
    assert (month.window.start, month.window.end) == (date(2026, 11, 1), date(2026, 12, 1))
    day = edited({"measures": ["gmv"], "window": {"start": "2026-11-30", "end": "2026-12-01"}}, "提前一个月看看")
    assert (day.window.start, day.window.end) == (date(2026, 10, 30), date(2026, 10, 31))


@pytest.mark.parametrize("said", ["那前一天呢", "and the day before?"])
def test_the_day_before_a_one_day_window_on_a_monday_is_the_sunday_before(said):
    monday = {"measures": ["gmv"], "window": {"start": "2026-11-30", "end": "2026-12-01"}}  # a Monday
    plan = edited(monday, said)
    assert (plan.window.start, plan.window.end) == (date(2026, 11, 29), date(2026, 11, 30))
    week = edited(monday, "前一周的呢")  # a week before said: the Monday before
    assert (week.window.start, week.window.end) == (date(2026, 11, 23), date(2026, 11, 24))
