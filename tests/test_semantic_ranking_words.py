"""Ways business people word rankings, comparisons and shares, read by the rules against the demo's bundled model:
every member ranked when all are asked for, growth said with its measure in between, "order the regions …" as a
verb, the month before said as 它前面那个月, the whole of a share said before the part, an average per its own
count; follow-ups that ask a trend by a period as long as the window, or the same time last year; a list sorted by a
date is in time order, not ranked. The questions are written here."""

from __future__ import annotations

import pytest

from demo_reading import MODEL, edited, grounded
from wenshu.semantic.grounding import ground
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.plan import QueryPlan


@pytest.mark.parametrize("question", [
    "Which region had the lowest cancellation rate last month? Rank all of them.",
    "which brand sold the most units this week - give me all of them, best first",
    "上个月哪个渠道的客单价最高，全部排一下",
    "Which regions had the lowest cancellation rate last month?",  # a plural after "which": the members, not one
    "which cities brought in the most revenue this quarter",
])  # fmt: skip
def test_every_member_is_ranked_when_all_are_asked_for(question):
    plan = grounded(question)
    assert plan.order is not None and plan.limit is None and plan.dimensions


def test_a_single_best_stays_one_member():
    plan = grounded("Which region had the lowest cancellation rate last month?")
    assert plan.limit == 1


@pytest.mark.parametrize(("question", "order"), [
    ("which cities grew their revenue fastest this month versus last month", "desc"),
    ("which brands dropped their units sold the most last week vs the week before", "asc"),
    ("Which categories fell in units sold the most this week against last week?", "asc"),
    ("which channels rose AOV the most this month compared to last month", "desc"),
    ("the two regions with the slowest sales growth this month vs last month", "asc"),  # the least growth
    ("本月和上月比，哪个渠道的订单量增长最慢", "asc"), ("which cities had the strongest GMV growth this month vs last", "desc"),
])  # fmt: skip
def test_growth_said_with_the_measure_in_between_ranks_by_the_change(question, order):
    plan = grounded(question)
    assert plan.compare == "previous" and plan.by_change and plan.order == order


@pytest.mark.parametrize("question", [
    "This year, order the channels from the highest average order value down.",
    "please order the member levels by refund rate",
])  # fmt: skip
def test_order_as_a_verb_splits_and_ranks_and_counts_no_orders(question):
    plan = grounded(question)
    assert plan.dimensions and plan.order == "desc" and "paid_orders" not in plan.measures and not plan.records


@pytest.mark.parametrize("question", ["上周的退款率比起它前面那一周，是高了还是低了？", "本季度毛利率和之前那个季度比怎么样"])
def test_the_period_before_said_as_the_one_before_it_compares(question):
    assert grounded(question).compare == "previous"


def test_the_whole_of_a_share_said_before_the_part_is_kept():
    plan = grounded("Year to date, how much of our 母婴玩具 revenue came from 乐高, as a percentage?")
    assert plan.share and plan.share_within == ["category"] and not plan.value_too


def test_a_leading_of_clause_sets_the_whole_of_the_share():
    plan = grounded("Of this month's paid orders from new first-tier cities, what percentage were placed on the web?")
    assert plan.share and plan.share_within == ["city_tier"]


def test_an_among_clause_after_a_leading_window_sets_the_whole_of_the_share():
    plan = grounded("This month, among paid orders placed on the web, how big a slice came from 钻石 members?")
    assert plan.share and "channel" in plan.share_within and "member_level" not in plan.share_within


def test_an_average_per_its_own_count_is_the_ratio_alone():
    plan = grounded("这个月发往西南的订单，下单客户人均消费多少？")
    assert plan.measures == ["spend_per_buyer"]


@pytest.mark.parametrize(("question", "ratio"), [
    ("这周退款的那些单子，平均每单退了多少钱", "avg_refund"),  # refunds count in 笔, asked per 单
    ("本月平均每笔订单付了多少钱", "aov"),  # orders count in 单, asked per 笔
    ("平均每单花了多少钱", "aov"),
])  # fmt: skip
def test_an_average_per_transaction_is_per_the_rows_named_whatever_their_classifier(question, ratio):
    assert grounded(question).measures == [ratio]


@pytest.mark.parametrize(("question", "counted"), [
    ("本月哪些品类卖了超过50万", False),
    ("how many cities made more than 300,000 yuan last month", True),
    ("上季度消费超过8000元的客户有多少个", True),
])  # fmt: skip
def test_a_bound_on_money_made_said_with_a_verb_bounds_the_headline_measure(question, counted):
    m = headlined(MODEL, read(MODEL, question), question)  # as the plan step reads a first question
    plan = ground(QueryPlan(measures=m.measures or ["aov"]), MODEL, question, mentions=m).plan
    assert plan is not None
    assert plan.having and plan.having[0].dimension == "gmv" and plan.count_members == counted


def test_a_bound_on_pieces_sold_is_no_bound_on_money():
    got = ground(QueryPlan(measures=["gmv"]), MODEL, "本月哪些品牌卖出超过800台")
    assert got.plan is None or not any(h.dimension == "gmv" for h in got.plan.having)


def test_now_do_it_per_another_dimension_swaps_the_split():
    plan = edited({"measures": ["cancel_rate"], "dimensions": ["region"], "order": "desc"}, "now do the same per channel")
    assert plan.dimensions == ["channel"]


def test_a_trend_asked_after_a_comparison_shows_the_periods_not_their_growth():
    before = {"measures": ["gmv"], "window": {"start": "2026-10-01", "end": "2026-11-01"}, "compare": "previous"}
    plan = edited(before, "那按周看看最近两个月的走势")
    assert plan.grain == "week" and plan.compare == "none"
    assert edited(before, "按月看同比呢").compare == "yoy"  # a comparison said again stays


@pytest.mark.parametrize("question", ["按月的趋势呢", "show it month by month"])
def test_a_trend_by_a_period_as_long_as_the_window_shows_every_period_not_one(question):
    before = {"measures": ["gmv"], "window": {"start": "2026-10-01", "end": "2026-11-01"}}
    plan = edited(before, question)
    assert plan.grain == "month" and plan.window is None
    weekly = edited(before, "那每周的走势呢")  # a month holds several weeks: its window stays
    assert weekly.grain == "week" and weekly.window is not None


@pytest.mark.parametrize("question", ["那去年这个时候呢", "what about this time last year?"])
def test_the_same_time_last_year_is_the_window_a_year_back_not_the_whole_year(question):
    before = {"measures": ["gmv"], "dimensions": ["region"], "window": {"start": "2026-10-01", "end": "2026-11-01"}}
    plan = edited(before, question)
    assert plan.window.model_dump(mode="json") == {"start": "2025-10-01", "end": "2025-11-01"}
    assert plan.compare == "none" and plan.dimensions == ["region"]


def test_a_pair_with_its_gap_keeps_the_shape_when_the_measure_changes():
    before = {"measures": ["gmv"], "dimensions": ["channel"], "difference": True,
              "filters": [{"dimension": "channel", "values": ["app", "web"]}]}
    plan = edited(before, "换成单子数")
    assert plan.measures == ["paid_orders"] and plan.pair() == ("channel", ["app", "web"])


def test_a_top_n_of_the_split_names_none_of_its_members_even_when_a_word_is_one():
    before = {"measures": ["refund_rate"], "dimensions": ["brand"], "order": "desc"}
    # "Keep" is also one of the demo's brands: the value index finds it
    plan = edited(before, "keep the two worst", [{"table": "products", "column": "brand", "value": "Keep", "label": "Keep"}])
    assert plan.dimensions == ["brand"] and not plan.filters and plan.limit == 2


def test_a_list_sorted_by_a_date_is_in_time_order_not_ranked():
    question = "Refunds last week for damaged items: order id, refund date and amount, sorted by refund date"
    m = read(MODEL, question)
    assert not m.rank
    listed = detail(MODEL, m, question)
    assert listed.plan.records == "refund" and (listed.plan.order_by, listed.plan.order) == ("refund_date", "asc")


@pytest.mark.parametrize(("question", "limit"), [
    ("Which was last month's best-selling Apple product by units?", 1),  # a superlative before a value and a kind
    ("上个月销量最高的苹果产品", 1),  # the same in Chinese: the top product of the brand
    ("last month's 3 best-selling Apple products by units", 3),
])  # fmt: skip
def test_the_top_member_of_a_kind_within_a_value_is_ranked(question, limit):
    plan = grounded(question)
    assert plan.dimensions == ["product"] and plan.order == "desc" and plan.limit == limit
    assert plan.measures == ["units_sold"] and [f.dimension for f in plan.filters] == ["brand"]


@pytest.mark.parametrize(("question", "measures", "per"), [
    ("上个月各渠道的顾客各掏了多少钱？", ["gmv"], None),  # money spent, no measure named: the headline
    ("上个月工作日和周末平均一天能卖多少钱？", ["gmv"], "day"),  # 平均一天: per day
    ("上个月每个品类退了多少钱？", ["refund_amount"], None),  # refunds name their own money
])  # fmt: skip
def test_money_made_or_spent_asked_with_a_verb_is_the_headline(question, measures, per):
    m = headlined(MODEL, read(MODEL, question), question)
    assert m.measures == measures and m.per == per


@pytest.mark.parametrize(("question", "limit"), [
    ("上个月七个大区各自卖了多少钱？", None),  # all seven, each: no top 7 (a split added later keeps every row)
    ("上个月销售额前5个城市分别卖了多少？", 5),  # 前5个: a top five
])  # fmt: skip
def test_a_number_of_members_each_asked_is_all_of_them_not_a_top_n(question, limit):
    plan = grounded(question)
    assert plan.dimensions and plan.limit == limit and (plan.order is None) == (limit is None)
