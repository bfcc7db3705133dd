"""Names said apart or around other words: a period restated in brackets (the bracketed days, in the year said
before them), a name with 的 inside it (城市的等级), 按 … 分 around a name, "each" before a value and its kind's name
("each 手机数码 brand"), a count asked later in its unit, the rows money is counted "on", a time phrase that holds a
dimension's word (这星期), and moving a follow-up back by a period. Read by the rules against the demo's bundled
model, compiled and run on the demo database; the questions are written here."""

from __future__ import annotations

import sqlite3
from datetime import date

from demo_reading import MODEL, edited, planned
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.windows import plan_window


def test_a_period_restated_in_brackets_is_the_bracketed_days_in_the_year_said_before():
    last_year = date.today().year - 1
    window = plan_window("去年国庆前那一周（9月24号到30号）每天卖了多少钱")
    assert (window.start, window.end) == (date(last_year, 9, 24), date(last_year, 10, 1))
    window = plan_window("What did we sell on last year's Christmas Eve (the 24th of December)?")
    assert (window.start, window.end) == (date(last_year, 12, 24), date(last_year, 12, 25))
    month = plan_window("上个月")
    assert plan_window("上个月（整月）的销售额") == month  # brackets with no days of their own


def test_a_name_said_with_de_inside_and_split_around_by_an_and_fen(demo_db_file):
    plan = planned("上个月新注册的客户，按他们所在城市的等级来分，各档有多少人？")
    assert plan.measures == ["new_customers"] and plan.dimensions == ["city_tier"] and plan.via
    with sqlite3.connect(demo_db_file) as db:
        got = db.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
        want = db.execute("SELECT COUNT(*) FROM customers WHERE register_date >= ? AND register_date < ?",
                          (plan.window.start.isoformat(), plan.window.end.isoformat())).fetchone()[0]
    assert sum(n for _, n in got) == want and len(got) > 1


def test_each_before_a_value_and_a_name_of_another_kind_splits_by_that_name():
    plan = planned("上个月每个美妆个护品牌卖了多少件")
    assert plan.dimensions == ["brand"] and [f.dimension for f in plan.filters] == ["category"]
    plan = planned("Units sold last week for every 家居家装 brand")
    assert plan.dimensions == ["brand"]
    assert planned("上个月美妆个护品牌的销量").dimensions == []  # no "each": the category's total


def test_money_counted_on_rows_names_the_rows_not_a_count_of_them():
    plan = planned("How much discount did customers get on paid orders last week?")
    assert plan.measures == ["discount_amount"]


def test_a_time_phrase_holding_a_dimension_word_names_no_dimension():
    plan = planned("这星期到今天卖了多少钱，和上星期同样几天比呢")
    assert plan.dimensions == [] and plan.compare == "previous"


def test_a_follow_up_moved_back_by_a_period_shifts_the_window():
    before = planned("去年第二季度各品类的毛利").model_dump()
    after = edited(before, "往前挪一个季度看看")
    last_year = date.today().year - 1
    assert (after.window.start, after.window.end) == (date(last_year, 1, 1), date(last_year, 4, 1))
    assert after.dimensions == ["category"]
