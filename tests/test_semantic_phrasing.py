"""Readings that hold on any wording: a count named by its qualifier ("orders … cancelled"), a split inside a
measure's name ("各品牌销售额"), shares, 同比 and "which N"
worded freely, a follow-up that ranks by a measure it already has or counts a dimension, a list in time order,
and a trend compared period by period (run on real SQLite against SQL written by hand). Pure functions on the
demo's bundled model; the questions are written here."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

import pytest

from demo_subset import WINDOW, YEAR_AGO, demo_tables
from engine_data import load_sql
from wenshu.agent.plan_answer import PlanView
from wenshu.engines.execute import execute_readonly
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


@pytest.mark.parametrize(("question", "measures"), [
    ("how many orders were cancelled yesterday?", ["cancelled_orders"]),  # "orders" names the rows counted
    ("yesterday's orders and cancelled orders", ["paid_orders", "cancelled_orders"]),  # both named in full
    ("paid orders against cancelled orders this week", ["paid_orders", "cancelled_orders"]),
])  # fmt: skip
def test_a_count_named_by_its_qualifier_takes_the_rows_word_with_it(question, measures):
    assert read(MODEL, question).measures == measures


def test_a_dimension_name_that_begins_a_measure_name_is_split_after_a_split_word():
    m = read(MODEL, "去年各品牌销售额排名")
    assert "brand" in m.split and m.measures == ["item_sales"]
    assert "brand" not in read(MODEL, "去年品牌销售额一共多少").split  # no split word: the measure alone


@pytest.mark.parametrize("question", ["本周各渠道的订单量分别占整体多少", "上个月各大区退款金额占全部的多少"])
def test_a_share_said_as_what_each_takes_of_a_whole(question):
    assert read(MODEL, question).share


@pytest.mark.parametrize("question", ["上个季度的客单价比去年同一季度高吗", "本月访客数和去年同一个月比怎么样"])
def test_the_same_period_a_year_before_is_a_year_on_year_comparison(question):
    assert read(MODEL, question).compare == "yoy"


def test_which_n_is_a_split_ranked_not_a_count_and_whose_bounds_the_n():
    m = read(MODEL, "本周哪几个渠道的取消订单数最多？取前2个")
    assert m.split == ["channel"] and not m.counted and m.limit == 2
    assert read(MODEL, "the two regions whose refund rate was lowest last month").limit == 2


def test_a_follow_up_ranking_by_a_measure_it_has_orders_by_it_and_keeps_both():
    before = QueryPlan(measures=["item_sales", "gross_margin"], dimensions=["category"])
    question = "only the four categories whose margin was best"
    after = edit(before, read(MODEL, question), None, question, MODEL)
    assert after.measures == before.measures and after.order_by == "gross_margin" and after.limit == 4


def test_a_follow_up_counting_a_dimension_asks_its_distinct_count():
    before = QueryPlan(measures=["gmv"], grain="month")
    question = "and how many different customers placed orders in each of them?"
    after = edit(before, read(MODEL, question), None, question, MODEL)
    assert after.measures == ["buyers"] and after.grain == "month"


@pytest.mark.parametrize(("question", "order"), [
    ("refunds over 3,000 yuan this month: order id and amount, newest first", "desc"),
    ("本月有哪些退款超过3000元？按时间顺序", "asc"),
])  # fmt: skip
def test_a_list_in_the_time_order_it_asks_for(question, order):
    listed = detail(MODEL, read(MODEL, question), question)
    assert listed.plan.order_by == "refund_date" and listed.plan.order == order


@pytest.mark.parametrize(("question", "limit", "order"), [
    ("the 3 newest refunds: order id, amount and reason", 3, "desc"),
    ("列出最新的8笔退款：订单号、退款时间和原因", 8, "desc"),
    ("列出最早的两笔退款记录", 2, "asc"),
    ("the two earliest refunds, with order id and amount", 2, "asc"),
])  # fmt: skip
def test_a_list_of_the_n_newest_rows_is_bounded_and_in_time_order(question, limit, order):
    listed = detail(MODEL, read(MODEL, question), question)
    assert (listed.plan.limit, listed.plan.order_by, listed.plan.order) == (limit, "refund_time", order)
    # a number of days is a window, not a bound on rows
    days = "refunds of the last 7 days: order id and amount"
    assert detail(MODEL, read(MODEL, days), days).plan.limit is None


@pytest.fixture(scope="module")
def sqlite_url(demo_db_file, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("compounds") / "shop.sqlite"
    return load_sql(f"sqlite:///{path}", demo_tables(demo_db_file))


def test_a_trend_compared_period_by_period_shows_each_periods_growth(sqlite_url):
    plan = QueryPlan.model_validate({"measures": ["gmv"], "grain": "month", "window": YEAR_AGO, "compare": "previous"})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    result = execute_readonly(sqlite_url, compiled.sql, row_limit=100)
    assert result.columns == ["month", "GMV", "GMV change %"] and len(result.rows) == 12
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as conn:
        by_month = dict(conn.execute("SELECT strftime('%Y-%m', order_date), ROUND(SUM(pay_amount), 2) FROM orders "
                                     "WHERE status = 1 GROUP BY 1").fetchall())
    months = sorted(by_month)
    for month, gmv, growth in result.rows:
        before = by_month[months[months.index(month) - 1]]
        assert gmv == by_month[month] and abs(growth - round(100 * (gmv - before) / before, 2)) < 0.011
    yoy = compile_plan(MODEL, plan.model_copy(update={"compare": "yoy", "grain": "quarter"}), "sqlite", "zh")
    rows = execute_readonly(sqlite_url, yoy.sql, row_limit=100).rows
    assert yoy.columns == ["季度", "销售额", "销售额同比%"] and 4 <= len(rows) <= 5


def test_repeat_customers_are_the_customers_with_two_paid_orders_or_more(sqlite_url):
    plan = QueryPlan.model_validate({"measures": ["repeat_buyers", "repeat_rate"], "dimensions": ["channel"],
                                     "window": YEAR_AGO})
    compiled = compile_plan(MODEL, plan, "sqlite", "zh")
    got = {r[0]: tuple(r[1:]) for r in execute_readonly(sqlite_url, compiled.sql, row_limit=100).rows}
    assert compiled.columns == ["渠道", "复购客户数", "复购率"]
    where = f"status = 1 AND order_date >= '{YEAR_AGO['start']}' AND order_date < '{YEAR_AGO['end']}'"
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as conn:
        expected = conn.execute(f"""
            SELECT channel, SUM(n >= 2), ROUND(100.0 * SUM(n >= 2) / COUNT(*), 2) FROM (
              SELECT channel, customer_id, COUNT(*) AS n FROM orders WHERE {where} GROUP BY 1, 2) GROUP BY 1""").fetchall()
    assert {c: tuple(v) for c, *v in expected} == got and all(v[0] > 0 for v in got.values())
    assert read(MODEL, "今年有多少回头客").measures == ["repeat_buyers"]
    assert read(MODEL, "repeat purchase rate by region this year").measures == ["repeat_rate"]


def test_a_percentage_changes_by_points_and_money_by_a_percentage_of_itself(sqlite_url):
    plan = QueryPlan.model_validate({"measures": ["refund_rate", "aov"], "window": YEAR_AGO, "compare": "yoy"})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    (row,) = execute_readonly(sqlite_url, compiled.sql, row_limit=10).rows
    assert compiled.columns == ["refund rate", "refund rate (same period last year)", "refund rate YoY (pts)",
                                "average order value", "average order value (same period last year)",
                                "average order value YoY %"]
    assert abs(row[2] - (row[0] - row[1])) < 0.011 and abs(row[5] - 100 * (row[3] - row[4]) / row[4]) < 0.011


@pytest.mark.parametrize(("question", "order"), [
    ("上个月哪三个城市的订单量比前一个月掉得最厉害", "asc"),
    ("which three cities grew fastest in paid orders last month", "desc"),
])  # fmt: skip
def test_a_rank_by_how_much_a_measure_moved_orders_by_its_change(question, order, sqlite_url):
    m = read(MODEL, question)
    assert (m.compare, m.by_change, m.limit) == ("previous", order, 3)
    plan = QueryPlan.model_validate({"measures": ["paid_orders"], "dimensions": ["city"], "window": WINDOW,
                                     "compare": "previous", "by_change": True, "order": order, "limit": 3})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    rows = execute_readonly(sqlite_url, compiled.sql, row_limit=10).rows
    every = execute_readonly(sqlite_url, compile_plan(MODEL, plan.model_copy(update={"limit": None}), "sqlite",
                                                      "en").sql, row_limit=1000).rows
    growth = sorted((r[3] for r in every if r[3] is not None), reverse=order == "desc")
    assert [r[3] for r in rows] == growth[:3]  # the three that moved most that way, not the three largest


@pytest.mark.parametrize(("question", "by_amount"), [
    ("上个月哪两个城市的订单量比前一个月减少得最多", True),  # 最多: a quantity, ranked by how many fewer
    ("上个月哪两个城市的订单量比前一个月掉得最厉害", False),  # 最厉害: by the rate
])  # fmt: skip
def test_a_change_ranked_by_the_most_is_ranked_by_its_amount(question, by_amount, sqlite_url):
    got = ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan
    assert got.by_change and got.order == "asc" and got.difference == by_amount
    plan = QueryPlan.model_validate({**got.model_dump(), "window": WINDOW})
    rows = execute_readonly(sqlite_url, compile_plan(MODEL, plan, "sqlite", "en").sql, row_limit=10).rows
    every = execute_readonly(sqlite_url, compile_plan(MODEL, plan.model_copy(update={"limit": None}), "sqlite",
                                                      "en").sql, row_limit=1000).rows
    # by the amount: how many fewer, positive and largest first, with no growth % beside it; else the % lowest first
    assert [r[3] for r in rows] == sorted((r[3] for r in every if r[3] is not None), reverse=by_amount)[:2]
    assert all(len(r) == 4 for r in every) and (not by_amount or all(r[3] == r[2] - r[1] for r in every))


def test_each_measure_of_a_change_with_its_amount_is_told_from_its_own_columns(sqlite_url):
    plan = QueryPlan.model_validate({"measures": ["gmv", "paid_orders"], "window": WINDOW, "compare": "previous",
                                     "difference": True})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    (row,) = execute_readonly(sqlite_url, compiled.sql, row_limit=10).rows
    assert len(row) == 8  # value, earlier, growth % and amount, twice
    text = PlanView(MODEL, plan, "en").explain(compiled.columns, [list(row)])
    assert f"orders is {row[4]:,}" in text and f"{row[6]:+,.2f} %" in text and f"{row[5]:,}" in text, text


@pytest.mark.parametrize("question", ["Swap AOV for the number of unique buyers", "把客单价替换为去重买家数"])
def test_a_follow_up_swapping_one_measure_for_another_drops_the_one_it_names(question):
    before = QueryPlan(measures=["gmv", "aov"], dimensions=["channel"])
    after = edit(before, read(MODEL, question), None, question, MODEL)
    assert after.measures == ["gmv", "buyers"] and after.dimensions == ["channel"]


@pytest.mark.parametrize("question", ["Conversion yesterday vs the same day last week?", "昨天的订单量和上周同一天比怎么样"])
def test_a_day_against_the_same_day_a_week_before(question, sqlite_url):
    assert read(MODEL, question).compare == "week"
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as conn:
        def paid(d):
            return conn.execute("SELECT COUNT(*) FROM orders WHERE status = 1 AND order_date = ?", (d.isoformat(),)
                                ).fetchone()[0]

        # a day whose week-before count differs from its day-before count, so the two readings cannot agree
        day = next(d for d in (date.today() - timedelta(days=n) for n in range(1, 60))
                   if paid(d - timedelta(days=7)) != paid(d - timedelta(days=1)))
        expected = [paid(day), paid(day - timedelta(days=7))]
    plan = QueryPlan.model_validate({"measures": ["paid_orders"], "compare": "week",
                                     "window": {"start": day.isoformat(), "end": (day + timedelta(days=1)).isoformat()}})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    (row,) = execute_readonly(sqlite_url, compiled.sql, row_limit=10).rows
    assert compiled.columns == ["orders", "orders (same days last week)", "orders WoW %"]
    assert list(row[:2]) == expected


def test_a_daily_trend_against_the_same_weekday_a_week_before(sqlite_url):
    end = date.today()
    window = {"start": (end - timedelta(days=14)).isoformat(), "end": end.isoformat()}
    plan = QueryPlan.model_validate({"measures": ["paid_orders"], "grain": "day", "window": window, "compare": "week"})
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    rows = execute_readonly(sqlite_url, compiled.sql, row_limit=100).rows
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as conn:
        by_day = dict(conn.execute("SELECT order_date, COUNT(*) FROM orders WHERE status = 1 GROUP BY 1").fetchall())
    assert len(rows) == 14 and compiled.columns[-1] == "orders WoW %"
    for day, n, change in rows:
        before = by_day[(date.fromisoformat(day) - timedelta(days=7)).isoformat()]
        assert n == by_day[day] and abs(change - round(100 * (n - before) / before, 2)) < 0.011
