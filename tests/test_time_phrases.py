"""Relative time phrases resolve to valid, correctly ordered SQLite bounds, and reach the prompt."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.agent.generate import GenerateInput, Turn, build_messages
from wenshu.knowledge.time_phrases import evaluate, find_windows

TOMORROW = "date('now', '+1 day')"
QUESTIONS = [
    ("今天有多少单", ["今天"]), ("昨天的销售额", ["昨天"]), ("上周总共成交几单？", ["上周"]),
    ("这周到目前为止呢", ["这周到目前为止"]), ("上上周和上周比", ["上上周", "上周"]), ("上个月各大区", ["上个月"]),
    ("上上个月呢", ["上上个月"]), ("本月至今", ["本月至今"]), ("上季度和本季度", ["上季度", "本季度"]),
    ("去年和前年", ["去年", "前年"]), ("今年以来每个月", ["今年"]), ("最近30天每天的UV", ["最近30天"]),
    ("近三个月", ["近三个月"]), ("最近十二个月的趋势", ["最近十二个月"]), ("前两周", ["前两周"]),
    ("orders yesterday vs today", ["yesterday", "today"]), ("GMV last week", ["last week"]),
    ("revenue for the past 7 days", ["past 7 days"]), ("the last 3 months", ["last 3 months"]),
    ("this year to date", ["this year"]), ("last quarter", ["last quarter"]), ("各城市的订单量", []),
]  # fmt: skip


@pytest.mark.parametrize("question,phrases", QUESTIONS)
def test_phrases_resolve_to_valid_ordered_dates(question, phrases):
    windows = find_windows(question)
    assert [w.phrase for w in windows] == phrases
    conn = sqlite3.connect(":memory:")
    for w in windows:
        start = conn.execute(f"SELECT {w.start}").fetchone()[0]
        end = conn.execute(f"SELECT {w.end or TOMORROW}").fetchone()[0]
        assert start and end and len(start) == 10 and start < end, (w, start, end)


def test_half_a_year_is_six_complete_months_and_a_fortnight_fourteen_days():
    assert [(w.start, w.end) for w in find_windows("近半年的复购客户")] == [(w.start, w.end) for w in find_windows("近6个月")]
    (fortnight,) = find_windows("sales over the last fortnight")
    assert evaluate(fortnight) == evaluate(find_windows("the last 14 days")[0])


@pytest.mark.parametrize(("shorthand", "spelled"), [
    ("top sellers L30D", "the last 30 days"), ("L7D?", "最近7天"), ("refunds l8w", "the last 8 weeks"),
    ("GMV L12M by month", "the last 12 months"),
])  # fmt: skip
def test_business_shorthand_for_the_last_n_days_weeks_and_months_is_that_window(shorthand, spelled):
    (short,), (long,) = find_windows(shorthand), find_windows(spelled)
    assert evaluate(short) == evaluate(long)


@pytest.mark.parametrize("question", ["PL7D margin", "L30DAYS", "ML12M"])
def test_shorthand_inside_another_word_is_no_window(question):
    assert find_windows(question) == []


def test_last_week_is_the_previous_monday_to_sunday():
    conn = sqlite3.connect(":memory:")
    (w,) = find_windows("上周")
    days = conn.execute(f"SELECT julianday({w.end}) - julianday({w.start}), strftime('%w', {w.start})").fetchone()
    assert days == (7.0, "1")  # seven days from a Monday, ending before this Monday


def test_other_engines_get_the_same_bounds_as_their_date_literals():
    sqlite = find_windows("上个月的销售额", "sqlite")[0]
    start, end = evaluate(sqlite)
    pg = find_windows("上个月的销售额", "postgresql")[0]
    assert (pg.start, pg.end) == (f"DATE '{start}'", f"DATE '{end}'")
    assert find_windows("本月的销售额", "mysql")[0].end is None  # to date, as on SQLite
    assert find_windows("上个月的销售额", "mariadb")[0].start == f"'{start}'"


def _user_message(**kw) -> str:
    kw.setdefault("history", [])
    inp = GenerateInput(question=kw.pop("question", "上周的订单量"), dialect="sqlite", schema_block="TABLE t", today="2026-11-30",
                        row_limit=100, examples=[{"question": "Q1", "sql": "SELECT 1"}], **kw)  # fmt: skip
    return build_messages(inp)[1].content


def test_the_prompt_carries_the_windows_and_drops_examples_on_follow_ups():
    text = _user_message(time_windows=find_windows("上周的订单量"))
    assert "上周: <date column> >= date('now', 'weekday 0', '-13 days')" in text and "Q1" in text
    follow = _user_message(question="按城市拆开", history=[Turn("上周的订单量", "SELECT 2")])
    assert "SELECT 2" in follow and "Q1" not in follow
    assert "Time windows" not in _user_message(question="各城市的订单量")


def first_and_last_day(question: str, today: str) -> tuple[str, str]:
    """The one window the question names, as its first and last day, on the given day."""
    (w,) = find_windows(question)
    conn = sqlite3.connect(":memory:")
    return conn.execute(f"SELECT {w.start}, date({w.end}, '-1 day')".replace("'now'", f"'{today}'")).fetchone()


@pytest.mark.parametrize("question, today, first, last", [
    ("去年双十一的退款金额", "2026-12-01", "2025-11-11", "2025-11-11"),
    ("双11卖了多少", "2026-12-01", "2026-11-11", "2026-11-11"),  # alone: the latest one up to today
    ("双11卖了多少", "2026-06-01", "2025-11-11", "2025-11-11"),
    ("今年国庆假期每天的访客数", "2026-12-01", "2026-10-01", "2026-10-07"),
    ("前年国庆七天长假的成交额", "2026-12-01", "2024-10-01", "2024-10-07"),
    ("revenue on Christmas last year", "2026-03-01", "2025-12-25", "2025-12-25"),
    ("last year's Singles' Day orders", "2026-03-01", "2025-11-11", "2025-11-11"),
])
def test_named_shopping_and_public_days_resolve_to_their_dates(question, today, first, last):
    assert first_and_last_day(question, today) == (first, last)


@pytest.mark.parametrize("question, today, first, last", [
    ("上个月后半月各渠道的订单", "2026-03-10", "2026-02-16", "2026-02-28"),  # half a month: to its own end
    ("the first half of last month, by region", "2026-03-10", "2026-02-01", "2026-02-15"),
    ("本月上半月的退款", "2026-03-20", "2026-03-01", "2026-03-15"),
    ("10月的销售额", "2026-12-01", "2026-10-01", "2026-10-31"),
    ("10月的销售额", "2026-03-15", "2025-10-01", "2025-10-31"),  # the latest October that has started
    ("2025年2月各城市的订单量", "2026-12-01", "2025-02-01", "2025-02-28"),
    ("十二月份的退款", "2026-12-01", "2026-12-01", "2026-12-31"),
    ("revenue in October", "2026-12-01", "2026-10-01", "2026-10-31"),
    ("orders in Sept 2025", "2026-12-01", "2025-09-01", "2025-09-30"),
    ("2026-03 orders", "2026-12-01", "2026-03-01", "2026-03-31"),
    ("三季度的毛利", "2026-12-01", "2026-07-01", "2026-09-30"),
    ("2025年第四季度", "2026-12-01", "2025-10-01", "2025-12-31"),
    ("GMV for Q1 2026", "2026-12-01", "2026-01-01", "2026-03-31"),
    ("GMV in 2025", "2026-12-01", "2025-01-01", "2025-12-31"),
    ("2024年的销售额", "2026-12-01", "2024-01-01", "2024-12-31"),
    ("11月11日的订单", "2026-12-01", "2026-11-11", "2026-11-11"),
    ("orders on Nov 3rd", "2026-12-01", "2026-11-03", "2026-11-03"),
    ("visitors over the past two weeks", "2026-12-01", "2026-11-16", "2026-11-29"),
    ("今年1到10月的销售额", "2026-12-01", "2026-01-01", "2026-10-31"),
    ("去年10月的订单", "2026-12-01", "2025-10-01", "2025-10-31"),
    ("去年三季度的毛利", "2026-12-01", "2025-07-01", "2025-09-30"),
    ("revenue from January to March", "2026-12-01", "2026-01-01", "2026-03-31"),
    ("orders in October last year", "2026-12-01", "2025-10-01", "2025-10-31"),
    ("Q2 last year", "2026-12-01", "2025-04-01", "2025-06-30"),
    ("9月3号到9月20号的退款", "2026-12-01", "2026-09-03", "2026-09-20"),  # day ranges, both ends included
    ("10月5日至12日各渠道的订单", "2026-12-01", "2026-10-05", "2026-10-12"),
    ("GMV from Sep 3 through Sep 20", "2026-12-01", "2026-09-03", "2026-09-20"),
    ("refunds between Oct 2 and Oct 9", "2026-12-01", "2026-10-02", "2026-10-09"),
    ("orders Oct 2-9", "2026-12-01", "2026-10-02", "2026-10-09"),
    ("sales Dec 20 to Jan 4", "2026-01-10", "2025-12-20", "2026-01-04"),  # across New Year
    ("上周末的订单量", "2026-12-02", "2026-11-28", "2026-11-29"),  # last week's Saturday and Sunday
    ("GMV last weekend", "2026-11-30", "2026-11-28", "2026-11-29"),
    ("去年上半年各品牌的销售额", "2026-12-01", "2025-01-01", "2025-06-30"),  # half years
    ("下半年的GMV", "2026-12-01", "2026-07-01", "2026-12-31"),  # alone: the latest one that has started
    ("下半年的GMV", "2026-03-15", "2025-07-01", "2025-12-31"),
    ("turnover in the first half of this year", "2026-12-01", "2026-01-01", "2026-06-30"),
    ("the second half of 2025", "2026-12-01", "2025-07-01", "2025-12-31"),
    ("GMV for H1 last year", "2026-12-01", "2025-01-01", "2025-06-30"),
    ("今年头三个月每个月的成交额", "2026-12-01", "2026-01-01", "2026-03-31"),  # the first months of a named year
    ("2025年前两个月的订单", "2026-12-01", "2025-01-01", "2025-02-28"),
    ("the first 4 months of last year", "2026-12-01", "2025-01-01", "2025-04-30"),
])
def test_named_months_quarters_years_and_dates_resolve_to_their_dates(question, today, first, last):
    assert first_and_last_day(question, today) == (first, last)


@pytest.mark.parametrize("question, today, first", [
    ("Since January, how many orders went to tier-1 cities?", "2026-12-01", "2026-01-01"),
    ("sales since the beginning of October last year", "2026-12-01", "2025-10-01"),
    ("3月以来的退款金额", "2026-12-01", "2026-03-01"), ("自11月至今", "2026-03-15", "2025-11-01"),
])
def test_a_month_up_to_today_starts_on_its_first_day_and_stays_open(question, today, first):
    (w,) = find_windows(question)
    conn = sqlite3.connect(":memory:")
    assert conn.execute(f"SELECT {w.start}".replace("'now'", f"'{today}'")).fetchone() == (first,) and w.end is None
    assert [p.phrase for p in find_windows("orders from May")] == ["May"]  # "from May" alone is May


@pytest.mark.parametrize("question", ["最近三个月的订单", "每月的销售额", "上一季度的GMV", "May I see sales by city?",
                                      "orders over 2000 yuan", "orders for 2000 yuan or more", "each quarter",
                                      "sales in may be lower"])
def test_words_that_only_look_like_named_periods_are_not_read_as_them(question):
    phrases = [w.phrase for w in find_windows(question)]
    assert not any(p in ("May", "may", "一季度") or "2000" in p for p in phrases), phrases


def _catalog(*columns: tuple[str, str, list[str]]):
    from wenshu.catalog import Catalog, ColumnInfo, TableInfo

    cols = [ColumnInfo(name, kind, samples=samples) for name, kind, samples in columns]
    return Catalog("people", "sqlite", [TableInfo("people", columns=[ColumnInfo("id", "INTEGER"), *cols])])


@pytest.mark.parametrize("columns,dated", [
    ([("birth_year", "INTEGER", [])], False),
    ([("name", "TEXT", ["Ann", "Bo"])], False),
    ([("born", "DATE", [])], True),
    ([("created_at", "TIMESTAMP", [])], True),
    ([("joined", "TEXT", ["2009-01-01", "2010-05-17 10:00:00"])], True),
])  # fmt: skip
def test_time_windows_reach_only_catalogs_with_dates(columns, dated):
    from wenshu.knowledge.time_phrases import catalog_windows, holds_dates

    catalog = _catalog(*columns)
    assert holds_dates(catalog) is dated
    assert bool(catalog_windows("How many people were born in 1948?", catalog)) is dated
    assert bool(catalog_windows("How many people joined last month?", catalog)) is dated


def test_two_days_joined_by_and_are_two_days_not_a_range():
    assert [w.phrase for w in find_windows("orders on Oct 2 and Oct 9")] == ["Oct 2", "Oct 9"]


def test_a_named_day_of_last_or_this_week_is_that_one_day():
    (friday,) = find_windows("上周五的销售额")
    (week,) = find_windows("上周的销售额")
    start, end = evaluate(friday)
    monday, _ = evaluate(week)
    assert start.weekday() == 4 and (end - start).days == 1 and (start - monday).days == 4
    (sunday,) = find_windows("这周日")
    assert evaluate(sunday)[0].weekday() == 6
    assert find_windows("上周一到周五的订单")[0].phrase == "上周"  # a range of days is no one day
    assert find_windows("上周一共退了多少钱")[0].phrase == "上周"  # 一共: in all


@pytest.mark.parametrize(("said", "same_as"), [
    ("上个礼拜的退款", "上周的退款"), ("这礼拜卖了多少", "本周卖了多少"), ("上礼拜三", "上周三"),
    ("年初到现在的订单", "今年的订单"), ("从年初至今", "今年"), ("本月初以来", "本月"),
    ("revenue since the start of the year", "revenue this year"), ("since the beginning of the month", "this month"),
    ("GMV over the past half year", "近6个月的GMV"), ("the last half-year", "the last 6 months"),
    ("the two calendar months just finished", "the last 2 months"), ("the four months just ended", "the last 4 months"),
    ("each of the five most recent full weeks", "the last 5 weeks"), ("the 3 latest complete months", "last 3 months"),
])  # fmt: skip
def test_other_ways_of_saying_a_period_resolve_to_it(said, same_as):
    (got,), (expected,) = find_windows(said), find_windows(same_as)
    assert evaluate(got) == evaluate(expected) and got.phrase in said


@pytest.mark.parametrize(("said", "same_as"), [
    ("近半个月的销售额", "最近15天的销售额"), ("the past half month", "the last 15 days"),
    ("visitors over the last forty-five days", "最近45天的访客"), ("the past twenty one days", "最近21天"),
])  # fmt: skip
def test_more_days_said_in_words_resolve_to_those_days(said, same_as):
    (got,), (expected,) = find_windows(said), find_windows(same_as)
    assert evaluate(got) == evaluate(expected) and got.phrase in said


@pytest.mark.parametrize("said", ["大前天的订单", "the GMV of three days ago"])
def test_three_days_ago_is_that_one_day(said):
    (got,) = find_windows(said)
    start, end = evaluate(got)
    assert (evaluate(find_windows("今天")[0])[0] - start).days == 3 and (end - start).days == 1


def test_a_month_in_three_parts_and_a_day_of_a_shopping_festival():
    start, end = evaluate(find_windows("上个月下旬的退款")[0])
    last_start, last_end = evaluate(find_windows("上个月")[0])
    assert start.day == 21 and start.month == last_start.month and end == last_end
    start, end = evaluate(find_windows("上月中旬")[0])
    assert (start.day, end.day, (end - start).days) == (11, 21, 10)
    start, end = evaluate(find_windows("去年618那天卖了多少")[0])
    assert (start.month, start.day, (end - start).days) == (6, 18, 1)
    assert not find_windows("单价超过618元的商品")  # a price, no day


@pytest.mark.parametrize(("said", "same_as"), [
    ("最近一百二十天的退款", "最近120天的退款"), ("近两百天", "近200天"), ("过去一百零八天", "过去108天"),
    ("最近一百五天", "最近150天"), ("the last three complete quarters", "最近3个季度"),
    ("GMV for the past two quarters", "过去两个季度的GMV"), ("last year's fourth quarter", "去年第四季度"),
    ("during the third quarter of last year", "去年三季度"), ("the 1st quarter of this year", "今年一季度"),
    ("the 3rd of March last year", "去年3月3日"), ("9 June 2025", "2025年6月9日"),
])  # fmt: skip
def test_hundreds_in_chinese_counted_quarters_and_dates_said_day_first(said, same_as):
    (got,), (expected,) = find_windows(said), find_windows(same_as)
    assert evaluate(got) == evaluate(expected) and got.phrase in said


def test_the_first_days_of_a_month_run_from_its_first_day():
    for said, days, shift in (("上个月头七天", 7, -1), ("本月前3天的订单", 3, 0), ("the first twelve days of last month", 12, -1),
                              ("last month's first 4 days", 4, -1)):
        (got,) = find_windows(said)
        start, end = evaluate(got)
        month_start = evaluate(find_windows("上个月" if shift else "本月")[0])[0]
        assert start == month_start and (end - start).days == days


def test_a_sunday_of_last_week_before_a_noun_and_last_weekday_in_english():
    (sunday,) = find_windows("上周日退款的订单")
    start, end = evaluate(sunday)
    assert start.weekday() == 6 and (end - start).days == 1
    assert find_windows("上周日均访客")[0].phrase == "上周"  # 日均: a daily average of last week
    today = evaluate(find_windows("今天")[0])[0]
    (tuesday,) = find_windows("refunds last Tuesday")
    start, end = evaluate(tuesday)
    assert start.weekday() == 1 and 1 <= (today - start).days <= 7 and (end - start).days == 1


@pytest.mark.parametrize(("said", "first", "days", "shift"), [
    ("本月2号的退款", 2, 1, 0), ("上个月20号那天卖了多少", 20, 1, -1), ("上月8日至17日的订单", 8, 10, -1),
    ("这个月3号到9号", 3, 7, 0), ("GMV on the 5th of last month", 5, 1, -1), ("this month's 2nd", 2, 1, 0),
    ("between the 4th and the 12th of last month", 4, 9, -1),
])  # fmt: skip
def test_days_of_last_or_this_month_said_by_their_dates(said, first, days, shift):
    (got,) = find_windows(said)
    start, end = evaluate(got)
    month_start = evaluate(find_windows("上个月" if shift else "本月")[0])[0]
    assert start.day == first and start.month == month_start.month and (end - start).days == days


@pytest.mark.parametrize("said", ["上个月21号到月底的销售额", "from the 21st of last month to its last day", "上月21日至月末"])
def test_a_day_of_last_month_to_its_end_runs_to_the_month_end(said):
    (got,) = find_windows(said)
    start, end = evaluate(got)
    assert start.day == 21 and end == evaluate(find_windows("上个月")[0])[1]
    (to_date,) = find_windows("本月1号到今天的退款")
    assert to_date.end is None and evaluate(to_date) == evaluate(find_windows("本月至今")[0])


def test_a_weekday_before_a_word_other_than_a_count_is_that_day():
    for said, weekday in (("上周四哪两个品牌卖得最好", 3), ("上周二华东区的订单", 1), ("本周一各渠道", 0)):
        (got,) = find_windows(said)
        start, end = evaluate(got)
        assert start.weekday() == weekday and (end - start).days == 1, said
    for said in ("上周五个城市的销售额", "上周三十单以上的客户", "上周一共退了几笔"):  # counts: the whole week
        assert find_windows(said)[0].phrase == "上周", said


@pytest.mark.parametrize(("said", "same_as"), [
    ("去年九十月份的销售额", "去年9月到10月的销售额"), ("去年3、4月", "去年3月到4月"), ("去年十一十二月", "去年11月到12月"),
    ("过去六个完整自然周", "过去6周"),
])  # fmt: skip
def test_two_months_side_by_side_and_complete_natural_weeks(said, same_as):
    (got,), (expected,) = find_windows(said), find_windows(same_as)
    assert evaluate(got) == evaluate(expected) and got.phrase in said
    assert evaluate(find_windows("去年5月和7月")[0])[1].month == 6  # two months apart: the first, not a run


@pytest.mark.parametrize(("said", "same_as"), [
    ("大上个月的退款", "上上个月的退款"), ("大上周卖了多少", "上上周卖了多少"), ("上上个星期的订单", "上上周的订单"),
    ("平安夜那天的GMV", "12月24日的GMV"), ("GMV on New Year's Eve", "12月31日的GMV"),
])  # fmt: skip
def test_more_ways_of_saying_an_earlier_period_or_a_named_eve(said, same_as):
    (got,), (expected,) = find_windows(said), find_windows(same_as)
    assert evaluate(got) == evaluate(expected)


@pytest.mark.parametrize("said", ["去年双十二所在的那一周的订单", "去年12月12日那周的销售额", "sales in the week of Double 12 last year"])
def test_a_day_said_as_its_week_is_that_monday_to_sunday(said):
    (got,) = find_windows(said)
    start, end = evaluate(got)
    day = evaluate(find_windows("去年12月12日")[0])[0]
    assert start.weekday() == 0 and (end - start).days == 7 and start <= day < end
    assert (evaluate(find_windows("去年12月12日周五的订单")[0])[1] - evaluate(find_windows("去年12月12日")[0])[0]).days == 1
