"""Reading a question against the semantic model (`semantic.mentions`), reconciling a model's plan with it
(`semantic.grounding`), editing a plan by a follow-up (`semantic.edits`) and the answer a plan gives
(`agent.plan_answer`). Pure functions on the demo's bundled model; the questions are written here."""

from __future__ import annotations

from datetime import date

import pytest

from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan, Window

MODEL = parse_model(bundled_text("demo"))
HIT_EAST = [{"table": "regions", "column": "region_name", "value": "华东", "label": "华东", "matched": "华东"}]


def grounded(question: str, filled: dict | None = None, hits=None) -> dict | None:
    from wenshu.semantic.grounding import ground

    got = ground(QueryPlan.model_validate(filled or {"measures": ["pv"]}), MODEL, question, hits)
    return None if got.plan is None else got.plan.model_dump(exclude_defaults=True)


@pytest.mark.parametrize("question, plan", [
    # the model chose nothing useful: what the question says still makes the plan
    ("每个品牌的毛利和毛利率分别是多少", {"measures": ["gross_profit", "gross_margin"], "dimensions": ["brand"]}),
    ("按会员等级看下单客户数", {"measures": ["buyers"], "dimensions": ["member_level"]}),
    ("访客数最少的2个渠道", {"measures": ["uv"], "dimensions": ["channel"], "order": "asc", "limit": 2}),  # conformed
    ("Which city tier had the most new customers?", {"measures": ["new_customers"], "dimensions": ["city_tier"],
                                                     "order": "desc", "limit": 1}),
    ("退款金额每月的走势", {"measures": ["refund_amount"], "grain": "month"}),
    ("Weekly refund rate", {"measures": ["refund_rate"], "grain": "week"}),
    ("华东大区的客单价，和去年同期比", {"measures": ["aov"], "compare": "yoy",
                               "filters": [{"dimension": "region", "values": ["华东"]}]}),
    ("钻石会员贡献了多少比例的销售额", None),  # 比例 alone is not 占比: no share asked, still a total
    ("钻石会员的销售额占比", {"measures": ["gmv"], "share": True,
                           "filters": [{"dimension": "member_level", "values": ["3"]}]}),
])
def test_what_the_question_says_makes_the_plan(question, plan):
    got = grounded(question, hits=HIT_EAST)
    if plan is None:
        assert got is not None and not got.get("share")
    else:
        assert got == QueryPlan.model_validate(plan).model_dump(exclude_defaults=True)


def test_a_value_the_model_did_not_pick_becomes_a_filter_and_its_dimension_is_not_a_split():
    got = grounded("华东区域的订单量", {"measures": ["paid_orders"], "dimensions": ["region"]}, HIT_EAST)
    assert got == {"measures": ["paid_orders"], "filters": [{"dimension": "region", "values": ["华东"]}]}


def test_a_label_two_dimensions_share_filters_the_one_the_measure_reaches():
    from wenshu.semantic.compile import compile_plan

    got = grounded("App 渠道的浏览量")  # the traffic's channel conforms to the orders' one
    assert got["filters"] in ([{"dimension": "traffic_channel", "values": ["app"]}],
                              [{"dimension": "channel", "values": ["app"]}])
    assert '"daily_traffic"."channel" IN (\'app\')' in compile_plan(MODEL, QueryPlan.model_validate(got)).sql
    got = grounded("App 渠道的退款金额")  # refunds reach the orders' channel only
    assert got["filters"] == [{"dimension": "channel", "values": ["app"]}]


def test_the_models_one_measure_stays_when_the_question_says_most_of_its_name():
    assert grounded("今年以来新注册用户按月统计", {"measures": ["new_customers"]}) == {
        "measures": ["new_customers"], "grain": "month"}  # 注册用户数
    assert grounded("本月支付订单的数量", {"measures": ["paid_orders"]}) == {"measures": ["paid_orders"]}
    assert grounded("上个月入账多少", {"measures": ["gmv"]}) is None  # nothing of GMV's names: free SQL
    assert grounded("How many customers bought something last week?", {"measures": ["buyers"]}) == {
        "measures": ["buyers"]}  # customers who bought, in other words
    assert grounded("How many customers are there?", {"measures": ["buyers"]}) is None  # one word is not enough


def test_one_stretch_of_words_names_one_measure_but_each_word_counts():
    assert grounded("商品销售额")["measures"] == ["item_sales"]  # not also 销售额
    assert grounded("毛利和毛利率")["measures"] == ["gross_profit", "gross_margin"]


def test_a_ranked_list_of_records_is_a_detail_list_and_counting_words_are_not_a_rank():
    assert grounded("退款金额最高的5笔退款") == {"records": "refund", "measures": ["refund_amount"],
                                             "order_by": "refund_amount", "order": "desc", "limit": 5}
    assert grounded("the 3 smallest refunds")["order"] == "asc"  # the record's own rank_by: its amount
    assert grounded("客单价最高的5笔订单") is None  # nothing ranks an order's row by its AOV: free SQL
    got = grounded("最近一个月的订单量")
    assert "limit" not in got and "order" not in got


@pytest.mark.parametrize("question, plan", [
    ("昨天有哪些订单被取消了？", {"records": "order", "filters": [{"dimension": "order_status", "values": ["2"]}]}),
    ("Which orders were cancelled yesterday?", {"records": "order", "measures": ["cancelled_orders"]}),
    ("华东上周的退款明细", {"records": "refund", "filters": [{"dimension": "region", "values": ["华东"]}]}),
    ("昨天App渠道被取消的订单有哪些", {"records": "order", "filters": [
        {"dimension": "order_status", "values": ["2"]}, {"dimension": "channel", "values": ["app"]}]}),
    ("昨天被取消的订单有多少", None),  # how many: a number, not a list
    ("Which channel had the most cancelled orders?", None),  # a split: one row per channel
])
def test_a_question_that_asks_to_see_rows_is_a_detail_list(question, plan):
    got = grounded(question, hits=HIT_EAST)
    assert (got if plan else (got or {}).get("records")) == plan


def test_a_detail_list_compiles_to_the_record_rows_with_their_filters_and_rank():
    from wenshu.semantic.compile import PlanNotCompilable, compile_plan

    listed = QueryPlan(records="order", measures=["cancelled_orders"], window=LAST_MONTH,
                       filters=[{"dimension": "category", "values": ["母婴玩具"]}])
    sql = compile_plan(MODEL, listed).sql
    assert '"orders"."status" = 2' in sql and "EXISTS" in sql and "GROUP BY" not in sql  # items: no repeated orders
    assert sql.rstrip().endswith('"orders"."order_time"')
    with pytest.raises(PlanNotCompilable):  # "按城市拆开" on a list: free SQL answers, the trace says why
        compile_plan(MODEL, listed.model_copy(update={"dimensions": ["city"]}))
    ranked = compile_plan(MODEL, QueryPlan(records="refund", order_by="refund_amount", order="desc", limit=3), lang="en")
    assert 'ORDER BY\n  "refunds"."refund_amount" DESC\nLIMIT 3' in ranked.sql
    assert ranked.columns == ["order number", "refund time", "refund amount", "refund reason"]


def test_a_word_two_measures_share_is_answered_by_one_and_offers_the_other():
    from wenshu.semantic.grounding import ground

    text = bundled_text("demo").replace("synonyms: [销售件数,", "synonyms: [走量, 销售件数,").replace(
        "synonyms: [订单数,", "synonyms: [走量, 订单数,")
    model = parse_model(text)
    got = ground(QueryPlan(measures=["pv"]), model, "上个月的走量")
    assert got.plan.measures == ["paid_orders"]  # declared first
    assert got.notes == [{"kind": "ambiguous", "used": "paid_orders", "others": ["units_sold"]}]
    got = ground(QueryPlan(measures=["units_sold"]), model, "上个月的走量")
    assert got.plan.measures == ["units_sold"] and got.notes[0]["others"] == ["paid_orders"]


LAST_MONTH = Window(start=date(2026, 5, 1), end=date(2026, 6, 1))
FIRST = QueryPlan(measures=["gmv"], dimensions=["region"], window=LAST_MONTH, order="desc", limit=3)


def edited(question: str, plan: QueryPlan = FIRST, hits=None) -> dict | None:
    from wenshu.semantic.edits import edit
    from wenshu.semantic.mentions import read
    from wenshu.semantic.windows import followup_window

    m = read(MODEL, question, hits)
    got = edit(plan, m, followup_window(question, plan.window, m.compare), question, MODEL)
    return None if got is None else got.model_dump(mode="json", exclude_defaults=True)


def test_follow_ups_edit_the_previous_plan():
    assert edited("换成订单量")["measures"] == ["paid_orders"]
    assert edited("再加上订单量")["measures"] == ["gmv", "paid_orders"]
    assert edited("只看华东的", hits=HIT_EAST)["filters"] == [{"dimension": "region", "values": ["华东"]}]
    assert edited("再按渠道分一下")["dimensions"] == ["region", "channel"]
    assert edited("换成按渠道看")["dimensions"] == edited("break it down by channel instead")["dimensions"] == ["channel"]
    assert edited("和去年同期比呢")["compare"] == "yoy"
    assert edited("和去年同期比呢")["window"] == {"start": "2026-05-01", "end": "2026-06-01"}  # 去年 is what it compares with
    moved = edited("那本周呢")
    assert moved["window"]["start"] != "2026-05-01" and moved["measures"] == ["gmv"] and moved["limit"] == 3
    assert edited("按月看趋势")["grain"] == "month"
    assert edited("谢谢") is None  # nothing the plan knows: free SQL (with the history) answers


def test_the_answer_chart_and_chips_come_from_the_plan():
    from wenshu.agent.plan_answer import PlanView
    from wenshu.agent.plan_reply import chips

    plan = QueryPlan(measures=["gmv"], filters=[{"dimension": "region", "values": ["华东"]}], window=LAST_MONTH,
                     compare="previous")
    view = PlanView(MODEL, plan, "zh")
    text = view.explain(["销售额", "销售额（上期）", "销售额环比%"], [[1200.5, 1000.0, 20.05]])
    assert text.startswith("2026-05-01 至 2026-05-31，大区=华东，销售额为 1,200.50 元，环比 +20.05 %")
    assert view.chart(["销售额", "销售额（上期）", "销售额环比%"], [[1200.5, 1000.0, 20.05]], "t")["mark"]["type"] == "bar"
    kinds = {c["kind"]: c for c in chips(view)}
    assert set(kinds) == {"measure", "filter", "window", "compare"}
    assert kinds["filter"]["remove"].get("filters", []) == [] and kinds["compare"]["options"][0]["plan"]["compare"] == "yoy"
    assert kinds["measure"]["remove"] is None  # the only measure cannot go
    assert "window" not in kinds["window"]["remove"] and kinds["window"]["remove"].get("compare", "none") == "none"

    en = PlanView(MODEL, QueryPlan(measures=["paid_orders"], dimensions=["city_tier"], share=True), "en")
    rows = [["tier 1", 10, 50.0], ["new tier 1", 6, 30.0], ["tier 2", 4, 20.0]]
    assert en.explain(["city tier", "orders", "share %"], rows) == (
        "orders by city tier, 3 rows; the highest share is tier 1 with 50.00 %.")
    assert en.chart(["city tier", "orders", "share %"], rows, "t")["mark"]["type"] == "arc"
    trend = PlanView(MODEL, QueryPlan(measures=["uv", "pv"], grain="day"), "en")
    spec = trend.chart(["day", "visitors", "page views"], [["2026-05-01", 1, 5], ["2026-05-02", 2, 6]], "t")
    assert spec["mark"]["type"] == "line"
    versus = PlanView(MODEL, QueryPlan(measures=["gmv"], dimensions=["region"], window=LAST_MONTH, compare="yoy"), "zh")
    spec = versus.chart(["大区", "销售额", "销售额（去年同期）", "销售额同比%"], [["华东", 5.0, 4.0, 25.0], ["华南", 3.0, 2.0, 50.0]], "t")
    assert spec["mark"]["type"] == "bar" and "xOffset" in spec["encoding"]


def test_a_value_the_measures_cannot_be_filtered_by_sends_the_question_to_free_sql():
    hit = [{"table": "refunds", "column": "reason", "value": "七天无理由", "label": "七天无理由", "matched": "七天无理由"}]
    assert grounded("七天无理由的访客数", hits=hit) is None  # traffic has no refunds: no plan, not a silent drop
    got = grounded("七天无理由的退款金额", hits=hit)
    assert got["filters"] == [{"dimension": "refund_reason", "values": ["七天无理由"]}]


def test_an_item_level_value_filters_orders_through_their_items():
    hit = [{"table": "categories", "column": "category_name", "value": "母婴玩具", "label": "母婴玩具", "matched": "母婴玩具"}]
    got = grounded("上周有母婴玩具商品的订单量", hits=hit)
    assert got == {"measures": ["paid_orders"], "filters": [{"dimension": "category", "values": ["母婴玩具"]}]}


@pytest.mark.parametrize("question, part", [
    ("Top 5 products by units sold this year", {"dimensions": ["product"], "limit": 5, "order": "desc"}),
    ("Revenue across regions last month", {"dimensions": ["region"]}),
    ("Compare this month's revenue with last month", {"compare": "previous"}),
    ("revenue vs the previous week", {"compare": "previous"}),
    ("本月的销售额和上个月相比", {"compare": "previous"}),
    ("GMV last month against the same month last year", {"compare": "yoy"}),
    ("How do this quarter's orders compare with a year earlier?", {"compare": "yoy"}),
    ("上个月的订单量，和去年同月比", {"compare": "yoy"}),
    ("New customer sign-ups by week", {"measures": ["new_customers"], "grain": "week"}),  # singular of a plural name
    ("上个月各大区的日均销售额", {"dimensions": ["region"], "per": "day", "grain": None}),  # an average, not a trend
    ("average daily visitors last week", {"measures": ["uv"], "per": "day", "grain": None}),
    ("今年月均新增客户数", {"per": "month", "grain": None}),
    ("Revenue split by membership level as percentages", {"share": True, "dimensions": ["member_level"]}),
    ("Paid orders that include at least one item of 母婴玩具", {"dimensions": None, "order": None, "limit": None}),
    ("Revenue from tier 1 cities last month", {"dimensions": None,
                                               "filters": [{"dimension": "city_tier", "values": ["1"]}]}),
])
def test_english_plurals_and_comparison_words_are_read(question, part):
    got = grounded(question)
    assert {k: got.get(k) for k in part} == part, got


def test_the_period_a_comparison_names_is_not_the_plans_window():
    from wenshu.semantic.windows import plan_window, question_window

    assert plan_window("和去年同期比，上个月的销售额", "yoy") == question_window("上个月")
    assert plan_window("GMV last month against the same month last year", "yoy") == question_window("last month")
    assert plan_window("去年的销售额") == question_window("去年")


def test_a_period_to_date_compares_with_the_same_days_of_the_period_before():
    def before(start, end):
        w = Window(start=date.fromisoformat(start), end=date.fromisoformat(end)).shifted("previous")
        return w.start.isoformat(), w.end.isoformat()

    assert before("2026-12-01", "2026-12-04") == ("2026-11-01", "2026-11-04")  # this month so far
    assert before("2026-11-30", "2026-12-02") == ("2026-11-23", "2026-11-25")  # this week so far (from Monday)
    assert before("2026-11-01", "2026-12-01") == ("2026-10-01", "2026-11-01")  # last month
    assert before("2026-11-23", "2026-11-30") == ("2026-11-16", "2026-11-23")  # last week
    assert before("2026-11-05", "2026-11-12") == ("2026-10-29", "2026-11-05")  # any 7 days


def test_a_value_of_conformed_dimensions_filters_once_on_the_one_the_measures_reach():
    plan = QueryPlan(measures=["refund_amount"], dimensions=["refund_reason"], window=LAST_MONTH)
    assert edited("只看App渠道", plan)["filters"] == [{"dimension": "channel", "values": ["app"]}]
    assert grounded("App 的访客数和订单量")["filters"] in ([{"dimension": "channel", "values": ["app"]}],
                                                        [{"dimension": "traffic_channel", "values": ["app"]}])


@pytest.mark.parametrize("question, part", [
    ("List the five biggest cities by GMV last month", {"dimensions": ["city"], "limit": 5, "order": "desc"}),
    ("GMV and orders for the top ten cities", {"dimensions": ["city"], "limit": 10}),
    ("the average order value of all customers last month", {"dimensions": None, "limit": None}),  # all: a total
    ("所有城市的销售额合计", {"dimensions": None}),
])
def test_number_words_rank_and_all_means_a_total(question, part):
    got = grounded(question)
    assert {k: got.get(k) for k in part} == part, got


def test_values_named_in_english_filter_by_their_stored_chinese_values():
    hits = [{"table": "cities", "column": "city_name", "value": "上海", "label": "shanghai", "matched": "shanghai"}]
    assert grounded("How many buyers were there in Shanghai last month?", hits=hits)["filters"] == [
        {"dimension": "city", "values": ["上海"]}]
    assert grounded("Revenue in East China by city")["filters"] == [{"dimension": "region", "values": ["华东"]}]
    filled = {"measures": ["gmv"], "filters": [{"dimension": "category", "values": ["home appliances"]}]}
    assert grounded("sales of home appliances", filled)["filters"] == [{"dimension": "category",
                                                                       "values": ["家用电器"]}]
    assert edited("what about South China?", QueryPlan(measures=["gmv"], filters=[
        {"dimension": "region", "values": ["华东"]}], window=LAST_MONTH))["filters"] == [
        {"dimension": "region", "values": ["华南"]}]


def test_values_named_with_respectively_are_split_by_and_a_ranked_period_is_named():
    from wenshu.agent.plan_answer import PlanView

    hits = [{"table": "cities", "column": "city_name", "value": c, "label": c, "matched": c} for c in ("北京", "上海")]
    got = grounded("北京和上海上个月的销售额分别是多少", {"measures": ["gmv"]}, hits)
    assert got == {"measures": ["gmv"], "dimensions": ["city"], "filters": [{"dimension": "city", "values": ["北京", "上海"]}]}
    assert grounded("北京和上海上个月的销售额", {"measures": ["gmv"]}, hits)["dimensions"] == ["city"]  # each, as said
    assert grounded("北京和上海上个月的销售额合计", {"measures": ["gmv"]}, hits).get("dimensions") is None  # a total
    top_day = PlanView(MODEL, QueryPlan(measures=["uv"], grain="day", order="desc", limit=1, window=LAST_MONTH), "zh")
    assert "最高的是 2026-05-11（23,832 人）" in top_day.explain(["日期", "访客数"], [["2026-05-11", 23832]])


def test_a_whole_count_shows_without_decimals_and_a_ratio_keeps_them():
    from wenshu.agent.plan_answer import PlanView

    units = PlanView(MODEL, QueryPlan(measures=["units_sold", "aov"], window=LAST_MONTH), "zh")
    assert units.explain(["销量", "客单价"], [[263.0, 900.0]]).endswith("销量为 263 件；客单价为 900.00 元。")


def test_a_daily_average_is_named_in_the_answer_and_its_chip_removes_it():
    from wenshu.agent.plan_answer import PlanView
    from wenshu.agent.plan_reply import chips

    view = PlanView(MODEL, QueryPlan(measures=["gmv"], per="day", window=LAST_MONTH), "zh")
    assert view.explain(["日均销售额"], [[92806.45]]).endswith("日均销售额为 92,806.45 元。")
    per = next(c for c in chips(view) if c["kind"] == "per")
    assert per["label"] == "日均" and "per" not in per["remove"]
    assert edited("看看日均")["per"] == "day"


def test_one_value_that_cannot_filter_declines_even_when_another_can():
    hits = HIT_EAST + [{"table": "daily_traffic", "column": "channel", "value": "app", "label": "App", "matched": "App"}]
    assert grounded("华东 App 的访客数", hits=hits) is None  # traffic has no region: 华东 would be dropped
    filters = grounded("华东 App 的订单量", hits=hits)["filters"]
    assert sorted(filters, key=lambda f: f["dimension"]) == [
        {"dimension": "channel", "values": ["app"]}, {"dimension": "region", "values": ["华东"]}]


def test_a_top_n_glued_to_a_chinese_word_is_read():
    from wenshu.semantic.mentions import top_n

    assert top_n("每个城市的订单量Top10") == 10 and top_n("销售额TOP 3的城市") == 3 and top_n("desktop 3 items") is None
