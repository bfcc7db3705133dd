"""Business wording read by general rules, not by a question set's phrasing: periods to date and since a
start, period-over-period abbreviations, shares said as a slice or what each accounts for, a rank by
"worst" that follows the measure's direction (`better: lower`), money asked of a count, a split pinned to
one value, list fields of the records a row looks up, and lists bounded and sorted by a value. Pure
functions on the demo's bundled model, compiled SQL run on a real demo database; the questions are
written here."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

import pytest

from wenshu.knowledge.time_phrases import TimeWindow, evaluate, find_windows
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.grounding import ground, unpinned
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import Filter, QueryPlan
from wenshu.semantic.windows import followup_window

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, filled: dict):
    got = ground(QueryPlan.model_validate(filled), MODEL, question)
    assert got.plan is not None, got.reason
    return got.plan


@pytest.mark.parametrize(("question", "phrase", "start"), [
    ("orders in the previous six full calendar months", None, "six months"),
    ("new customers in the 6 complete months before this one", None, "six months"),
    ("units sold QTD", "QTD", "quarter"), ("orders week-to-date by channel", "week-to-date", "week"),
    ("refund amount, month to date", "month to date", "month"), ("GMV for the year so far", "the year so far", "year"),
    ("AOV in the most recent complete month", "the most recent complete month", "last month"),
    ("每个月的销量，去年以来", "去年以来", "last year"), ("visitors from the start of last quarter", None, "last quarter"),
    ("refunds over the past month", "the past month", "last month"),
])  # fmt: skip
def test_periods_to_date_since_a_start_and_the_last_full_period(question, phrase, start):
    (w,) = find_windows(question)
    assert phrase is None or w.phrase == phrase
    first, end = evaluate(w)
    today = evaluate(TimeWindow("", "date('now')", None))[0]  # SQLite's today, as the resolver's
    month1 = today.replace(day=1)
    expected = {"quarter": month1.replace(month=(today.month - 1) // 3 * 3 + 1), "year": today.replace(month=1, day=1),
                "month": month1, "week": today - timedelta(days=today.weekday()),
                "last month": (month1 - timedelta(days=1)).replace(day=1), "last year": date(today.year - 1, 1, 1),
                "six months": date(month1.year - (month1.month <= 6), (month1.month - 7) % 12 + 1, 1)}
    if start == "last quarter":
        q = month1.replace(month=(today.month - 1) // 3 * 3 + 1)
        expected[start] = date(q.year - (q.month == 1), (q.month - 4) % 12 + 1, 1)
    assert first == expected[start]
    assert (end > today) == (start not in ("last month", "six months"))  # to date: through today


@pytest.mark.parametrize(("question", "measure", "part"), [
    ("refund amount quarter-on-quarter", "refund_amount", {"compare": "previous"}),
    ("QoQ units sold", "units_sold", {"compare": "previous"}),
    ("visitors versus the same point last month", "uv", {"compare": "previous"}),
    ("page views vs the same point last year", "pv", {"compare": "yoy"}),
    ("How much of the units sold does each brand account for?", "units_sold", {"share": True, "dimensions": ["brand"]}),
    ("the slice of visitors each channel brings", "uv", {"share": True}),
    ("new customers week by week this quarter", "new_customers", {"grain": "week"}),
    ("units sold month to month in 2025", "units_sold", {"grain": "month", "compare": "none"}),
    ("page views for each of the last four full quarters", "pv", {"grain": "quarter"}),
    ("units sold in each of the 6 complete months before this one", "units_sold", {"grain": "month"}),
    ("did visitors rise in the most recent full week against the week prior?", "uv",
     {"compare": "previous", "limit": None}),  # "most recent" is a time, not a rank
    ("refunds by refund reason: number and percentage of each", "refund_count", {"share": True}),
    ("visitors by channel with percent change vs last week", "uv", {"share": False, "compare": "previous"}),
    ("units sold this month against the month prior", "units_sold", {"compare": "previous"}),
    ("visitors in the corresponding stretch of last year", "uv", {"compare": "yoy"}),
    ("is app or web ahead on visitors this week?", "uv", {"dimensions": ["channel"]}),  # compiled on the traffic's
    ("app and web side by side: page views", "pv", {"dimensions": ["channel"]}),
    ("the amount refunded per refund reason, as a share of all money refunded", "refund_amount",
     {"measures": ["refund_amount"], "dimensions": ["refund_reason"], "filters": []}),  # no order-status filter
])  # fmt: skip
def test_comparison_share_and_grain_words(question, measure, part):
    got = grounded(question, {"measures": [measure]}).model_dump()
    got["filters"] = [f["dimension"] for f in got["filters"]]
    assert {k: got[k] for k in part} == part


def test_a_named_month_of_a_named_year_and_order_by_as_a_verb():
    (w,) = find_windows("visitors in last year's March")
    first, end = evaluate(w)
    assert (first.month, end.month, first.year) == (3, 4, evaluate(TimeWindow("", "date('now')", None))[0].year - 1)
    plan = grounded("Order the categories by units sold, most first", {"measures": ["units_sold"],
                                                                       "dimensions": ["category"]})
    assert plan.measures == ["units_sold"]  # "Order" is the verb, not the paid-orders count


def test_worst_follows_the_measures_direction_and_lowest_does_not():
    """A refund rate is better lower, so its worst is its highest; a GMV's worst is its lowest."""
    assert grounded("the 3 worst cities by cancellation rate", {"measures": ["cancel_rate"], "dimensions": ["city"]}
                    ).order == "desc"
    assert grounded("the 3 best cities by cancellation rate", {"measures": ["cancel_rate"], "dimensions": ["city"]}
                    ).order == "asc"
    assert grounded("the 3 worst cities by GMV", {"measures": ["gmv"], "dimensions": ["city"]}).order == "asc"
    assert grounded("退款金额最低的3个品类", {"measures": ["refund_amount"], "dimensions": ["category"]}
                    ).order == "asc"  # 最低 is the value, not a judgement
    before = QueryPlan(measures=["refund_rate"], dimensions=["region"])
    followed = edit(before, read(MODEL, "worst two only"), None, "worst two only", MODEL)
    assert (followed.order, followed.limit) == ("desc", 2)


def test_money_asked_of_a_count_is_the_money_of_the_same_rows():
    assert grounded("how much money went out in refunds this week", {"measures": ["refund_count"]}).measures == \
        ["refund_amount"]
    assert grounded("how many refunds this week", {"measures": ["refund_count"]}).measures == ["refund_count"]


def test_a_split_pinned_to_one_value_is_no_split_and_two_values_still_split():
    one = QueryPlan(measures=["gmv"], dimensions=["region", "city"],
                    filters=[Filter(dimension="region", values=["华东"])])
    assert unpinned(one, MODEL).dimensions == ["city"]
    two = one.model_copy(update={"filters": [Filter(dimension="region", values=["华东", "华南"])]})
    assert unpinned(two, MODEL).dimensions == ["region", "city"]
    twin = QueryPlan(measures=["uv"], dimensions=["traffic_channel"], filters=[Filter(dimension="channel", values=["app"])])
    assert unpinned(twin, MODEL).dimensions == []  # the orders' channel pins the traffic's, its conformed twin


@pytest.mark.parametrize(("question", "split", "values"), [
    ("上个月大区的销售额", ["region"], {}),  # a dimension's name, 的, a measure: each member's
    ("渠道的订单量是多少", ["channel"], {}),
    ("本季度城市等级的客单价", ["city_tier"], {}),
    ("华东大区的销售额", [], {"region": ["华东"]}),  # a value's own kind: a filter
    ("上个月的销售额", [], {}),  # a period is no split
    ("上个月客户的平均客单价", [], {}),  # the customers are the rows themselves: all of them
    ("全国所有大区的销售额合计", [], {}),  # all of them: their total
])  # fmt: skip
def test_a_dimensions_name_before_a_measure_splits_by_it(question, split, values):
    m = read(MODEL, question)
    assert m.split == split and m.values == values

def test_a_growth_asked_in_percent_is_no_share_and_those_few_rows_are_no_count():
    m = read(MODEL, "Did this month's orders go up on the same month last year, and by what percent?")
    assert m.compare == "yoy" and not m.share
    assert read(MODEL, "What percent of orders came through the app?").share
    assert read(MODEL, "Refund rate by category last week, next to the previous week").compare == "previous"
    assert not read(MODEL, "上周下单的客户里男女各占多少人").share and read(MODEL, "上周男女客户各占多少").share
    assert read(MODEL, "上周那几笔取消的订单，把明细给我").listing  # 那几笔: those rows, not how many
    assert not read(MODEL, "上周有几笔订单被取消").listing


def test_a_list_shows_fields_of_the_rows_it_looks_up_and_a_possessive_names_one_field(demo_db_file):
    plan = grounded("list the refunds over ¥2,000 in the last 30 days: the order date, the buyer's phone "
                    "and the amount", {"measures": ["pv"]})
    assert plan.records == "refund"
    assert plan.columns == ["orders.order_date", "customers.phone", "refund_amount"]
    assert (plan.order_by, plan.order) == ("refund_amount", "desc")  # bounded below: the largest first
    compiled = compile_plan(MODEL, plan, "sqlite", "en")
    assert compiled.columns == ["order date", "phone", "refund amount"]
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compiled.sql).fetchall()
    assert rows and all(r[2] > 2000 for r in rows) and [r[2] for r in rows] == sorted((r[2] for r in rows), reverse=True)
    named = grounded("列出上周退款超过500元的退款：订单号、客户的姓名", {"measures": ["pv"]})
    assert named.columns == ["order_id", "customer"]  # the customer, shown by the name


def test_a_list_bounded_above_comes_cheapest_first_and_a_currency_sign_is_read(demo_db_file):
    assert [(t.op, t.value) for t in thresholds("refunds bigger than ¥1,500")] == [("gt", 1500)]
    plan = grounded("products whose price is under $80: product name, brand and list price", {"measures": ["pv"]})
    assert plan.records == "products" and (plan.order_by, plan.order) == ("unit_price", "asc")
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchall()
    assert rows and all(r[2] < 80 for r in rows) and [r[2] for r in rows] == sorted(r[2] for r in rows)


def test_a_member_with_no_rows_of_one_measure_counts_zero_and_a_total_over_nothing_stays_empty(demo_db_file):
    day = evaluate(TimeWindow("", "date('now', '-1 day')", "date('now')"))
    window = {"start": day[0].isoformat(), "end": day[1].isoformat()}
    by_city = QueryPlan.model_validate({"measures": ["refund_rate", "paid_orders"], "dimensions": ["city"],
                                        "window": window})
    sql = compile_plan(MODEL, by_city, "sqlite", "en").sql
    assert "COALESCE(m_refunded_orders.v, 0)" in sql
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(sql).fetchall()
        direct = dict(conn.execute(
            "SELECT c.city_name, ROUND(100.0 * SUM(o.status = 3) / COUNT(*), 2) FROM orders o JOIN cities c "
            "ON c.city_id = o.city_id WHERE o.status IN (1, 3) AND o.order_date = ? GROUP BY c.city_name",
            (window["start"],)).fetchall())
        assert {r[0]: r[1] for r in rows if r[0] in direct} == direct  # a city with no refunds: 0.0, not NULL
        nothing = QueryPlan(measures=["gmv"], filters=[Filter(dimension="city", values=["nowhere"])])
        assert conn.execute(compile_plan(MODEL, nothing, "sqlite", "en").sql).fetchall() == [(None,)]


def test_a_customers_city_is_their_own_and_an_orders_city_is_where_it_was_delivered(demo_db_file):
    new_by_city = compile_plan(MODEL, QueryPlan(measures=["new_customers"], dimensions=["city"]), "sqlite", "en").sql
    assert '"customers"."city_id" = "cities"."city_id"' in new_by_city
    gmv_by_city = compile_plan(MODEL, QueryPlan(measures=["gmv"], dimensions=["city"]), "sqlite", "en").sql
    assert '"orders"."city_id" = "cities"."city_id"' in gmv_by_city and '"customers"' not in gmv_by_city
    listed = QueryPlan(records="customers", filters=[Filter(dimension="city", values=["杭州"])])
    sql = compile_plan(MODEL, listed, "sqlite", "en").sql
    assert "EXISTS" not in sql  # the customers who live there, not those who had something delivered there
    with sqlite3.connect(demo_db_file) as conn:
        rows = conn.execute(sql).fetchall()
        lives = conn.execute("SELECT COUNT(*) FROM customers c JOIN cities ci ON ci.city_id = c.city_id "
                             "WHERE ci.city_name = '杭州'").fetchone()[0]
    assert len(rows) == lives > 0


def test_money_asked_of_a_dimensions_rows_and_the_period_before_that_moves_the_window():
    plan = grounded("Refund reasons this week: how much money went back for each?",
                    {"measures": ["uv"], "dimensions": ["refund_reason"]})
    assert plan.measures == ["refund_amount"] and plan.dimensions == ["refund_reason"]
    before = QueryPlan.model_validate({"measures": ["gmv"], "window": {"start": "2026-07-01", "end": "2026-10-01"}})
    q = "and for the quarter before that?"
    m = read(MODEL, q)
    after = edit(before, m, followup_window(q, before.window, m.compare), q, MODEL)
    assert after.compare == "none" and (after.window.start, after.window.end) == (date(2026, 4, 1), date(2026, 7, 1))


@pytest.mark.parametrize(("question", "status"), [
    ("上周发往华北的订单中，退款了的有几单", "3"), ("这个月已经取消的订单有多少", "2"),
])  # fmt: skip
def test_a_state_said_as_done_names_the_status(question, status):
    assert read(MODEL, question).values.get("order_status") == [status]


def test_an_amount_said_with_the_perfective_is_no_status():
    assert "order_status" not in read(MODEL, "上个月一共退款了多少钱").values


def test_complete_weeks_in_chinese_are_a_window_and_no_top_n():
    m = read(MODEL, "过去6个完整周每周的订单量")
    assert m.limit is None and not m.rank and m.grain == "week"
    (w,) = find_windows("过去6个完整周每周的订单量")
    first, end = evaluate(w)
    assert (end - first).days == 42 and first.weekday() == 0 and end <= date.today()


def test_which_customers_spent_the_most_is_a_split_by_customer():
    m = read(MODEL, "本季度哪几位客户花得最多，前3名")
    assert m.split == ["customer"] and m.measures == ["gmv"] and m.limit == 3


@pytest.mark.parametrize(("question", "filled", "measures"), [
    ("本周实付超过2000元的已支付订单有几单，合计金额多少", ["paid_orders"], ["paid_orders", "gmv"]),
    ("North China refunds this quarter in yuan, against the previous quarter", ["refund_count"], ["refund_amount"]),
    ("各退款原因的平均退款金额", ["refund_amount"], ["avg_refund"]),
    ("Cancelled orders by channel this month: how many, and their order value", ["order_value", "cancelled_orders"],
     ["cancelled_orders", "order_value"]),  # in the order the question asks them
])  # fmt: skip
def test_the_amounts_asked_are_the_measures(question, filled, measures):
    assert grounded(question, {"measures": filled}).measures == measures


def test_how_much_of_a_total_comes_from_bounded_rows_is_a_share_of_that_measure_alone():
    plan = grounded("How much of this month's GMV came from orders paying over 2000, as a percentage?",
                    {"measures": ["gmv", "paid_orders"]})
    assert plan.measures == ["gmv"] and plan.share and [(f.op, f.values) for f in plan.filters] == [("gt", [2000])]


def test_a_ranking_of_a_measure_named_with_a_dimension_ranks_that_dimensions_members():
    m = read(MODEL, "家用电器品类本月的品牌销售额排行，前3")
    assert m.split == ["brand"] and m.limit == 3


@pytest.mark.parametrize(("question", "measures"), [
    ("average refund on app orders by month this year", ["avg_refund"]),  # "orders": the rows refunds are of
    ("for orders shipped to 华北, the top 3 refund reasons by amount refunded this quarter", ["refund_amount"]),
    ("上季度退掉的钱里，各退款原因占多少", ["refund_amount"]),  # 退掉的钱: 退的钱 with its verb's result, no count
])  # fmt: skip
def test_rows_said_as_the_scope_of_another_measure_are_no_count(question, measures):
    m = read(MODEL, question)
    assert m.measures == measures


@pytest.mark.parametrize(("question", "share"), [
    ("last quarter's units sold by category, with each category's percentage", True),
    ("of all paid orders this month, how many went to 华南 and what fraction is that", True),
])  # fmt: skip
def test_a_fraction_or_each_members_percentage_is_a_share(question, share):
    assert read(MODEL, question).share is share


def test_money_asked_of_refunds_in_other_words_is_the_refund_amount():
    assert grounded("上季度退掉的钱里，各退款原因占多少", {"measures": ["refund_count"]}).measures == ["refund_amount"]
    assert grounded("How much did we refund this month on orders from 上海?",
                    {"measures": ["refund_count"]}).measures == ["refund_amount"]


def test_the_same_days_last_year_is_a_year_on_year_comparison():
    assert read(MODEL, "跟去年同样的这几天比一下").compare == "yoy"


def test_up_or_down_from_the_period_before_compares_and_keeps_the_window():
    from wenshu.semantic.windows import followup_window, plan_window

    first = "How much did we refund last month on orders from 上海?"
    previous = grounded(first, {"measures": ["refund_count"]}).model_copy(update={"window": plan_window(first)})
    question = "up or down from the month before that?"
    m = read(MODEL, question)
    plan = edit(previous, m, followup_window(question, previous.window, m.compare), question, MODEL)
    assert plan.compare == "previous" and plan.window == previous.window
    moved = "and orders from the month before?"
    assert followup_window(moved, previous.window, read(MODEL, moved).compare) == previous.window.shifted("previous")
