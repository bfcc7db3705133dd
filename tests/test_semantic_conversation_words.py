"""More ways a conversation's turns say what they change, and first questions say a top N or a period a year back:
拆到 splits, "和前年同期比" after a window of last year compares with the year before it, "widen it to cover … too"
joins the windows, "这几个品牌" after a top N keeps the members and the measure that picked them; "which 3 cities"
ranks; "the same month last year" compared with nothing is that month, and "against the year before" compares.
Read from the question's words on the demo's bundled model; the questions are written here."""

from __future__ import annotations

from datetime import timedelta

from demo_reading import MODEL, edited, planned

from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.plan import Window, add_months

LAST_XMAS_WEEK = {"start": "2025-12-22", "end": "2025-12-29"}


def test_a_split_said_with_chai_dao_adds_the_dimension():
    got = edited({"measures": ["aov"], "window": LAST_XMAS_WEEK}, "拆到渠道")
    assert got.dimensions == ["channel"] and got.measures == ["aov"]


def test_the_same_period_of_the_year_before_a_window_of_last_year_is_a_year_over_year_comparison():
    got = edited({"measures": ["gmv"], "dimensions": ["channel"], "window": LAST_XMAS_WEEK}, "跟前年同期比一下呢")
    assert got.compare == "yoy" and got.window == Window.model_validate(LAST_XMAS_WEEK)


def test_a_window_widened_to_cover_another_joins_the_two():
    this_week = planned("这周到目前为止的退款率").window
    got = edited({"measures": ["refund_rate"], "window": this_week.model_dump(mode="json")},
                 "Stretch that to include last week as well")
    assert got.window.start == this_week.start - timedelta(days=7) and got.window.end == this_week.end
    assert edited({"measures": ["refund_rate"], "window": this_week.model_dump(mode="json")}, "上周也算进去").window == got.window


def test_the_members_a_top_n_listed_keep_the_measure_that_picked_them():
    before = {"measures": ["item_sales"], "dimensions": ["brand"], "window": LAST_XMAS_WEEK, "order": "desc", "limit": 4}
    got = edited(before, "这几个品牌各卖了多少件")
    assert got.measures == ["item_sales", "units_sold"] and got.limit == 4 and got.dimensions == ["brand"]
    assert edited(before, "换成按销量排前四").measures == ["units_sold"]  # a new ranking: the members change


def test_which_n_members_is_a_top_n():
    plan = planned("Which 3 cities lead on paid orders this quarter?")
    assert plan.dimensions == ["city"] and plan.limit == 3 and plan.order == "desc"
    question = "Which 4 brands took in the least money last month?"  # money taken in: the headline measure
    m = headlined(MODEL, read(MODEL, question), question)
    assert m.measures == [MODEL.headline] and (m.limit, m.order) == (4, "asc")


def test_the_same_month_last_year_compared_with_nothing_is_that_whole_month():
    plan = planned("What was each channel's average order value in the same month last year?")
    start = add_months(evaluate(find_windows("this month")[0])[0], -12)
    assert plan.compare == "none" and plan.window == Window(start=start, end=add_months(start, 1))
    assert planned("GMV this month against the same month last year").compare == "yoy"
    assert planned("去年同季度各渠道的订单量").compare == "none"
    assert planned("上季度订单量跟去年同季度比怎么样").compare == "yoy"


def test_a_day_against_the_same_day_the_year_before_is_year_over_year():
    plan = planned("Christmas Eve GMV last year against the year before")
    assert plan.compare == "yoy" and (plan.window.start.month, plan.window.start.day) == (12, 24)


def test_a_share_of_the_same_quarter_last_year_is_that_quarters_share_not_a_comparison():
    plan = planned("去年同季度各渠道的销售额占比")
    assert plan.compare == "none" and plan.share and 89 <= (plan.window.end - plan.window.start).days <= 92
