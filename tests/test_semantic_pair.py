"""Two members of a split side by side with the gap between them, in one row ("上个月华东和华南各卖了多少钱？差了多少？"):
read from the question's words, compiled, run on the demo database and checked against the two members asked
one at a time; the explanation and the chart follow the row. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest
from demo_reading import MODEL, grounded
from demo_subset import YEAR_AGO

from wenshu.agent.plan_answer import PlanView
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.plan import QueryPlan

WINDOW = YEAR_AGO  # the twelve months before this one: the demo data ends today


@pytest.mark.parametrize(("question", "dimension"), [
    ("今年上半年华北和西南各卖了多少钱，差了多少", "region"),
    ("web和app的订单量，web比app少几单", "channel"),
    ("what was the refund rate for men and for women, and the gap between them", "gender"),
])  # fmt: skip
def test_a_gap_asked_between_two_members_reads_as_a_pair(question, dimension):
    plan = grounded(question)
    assert plan.pair() is not None and plan.pair()[0] == dimension


def test_two_members_compared_without_a_gap_stay_one_row_each():
    plan = grounded("华北和西南的销售额对比")
    assert plan.pair() is None and plan.dimensions == ["region"]


def _one(db, plan: dict) -> float:
    return sqlite3.connect(db).execute(compile_plan(MODEL, QueryPlan.model_validate(plan)).sql).fetchone()[-1]


def alone_exact(db, region: str) -> float:
    refunded, settled = sqlite3.connect(db).execute(f"""
        SELECT SUM(o.status = 3), COUNT(*) FROM orders o JOIN cities c ON c.city_id = o.city_id
        JOIN regions r ON r.region_id = c.region_id WHERE r.region_name = '{region}' AND o.status IN (1, 3)
        AND o.order_date >= '{WINDOW["start"]}' AND o.order_date < '{WINDOW["end"]}'""").fetchone()
    return 100.0 * refunded / settled


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pair_is_both_members_and_the_first_minus_the_second(demo_db_file, lang):
    plan = QueryPlan.model_validate({"measures": ["gmv", "refund_rate"], "dimensions": ["region"], "window": WINDOW,
                                     "difference": True, "filters": [{"dimension": "region", "values": ["华北", "西南"]}]})
    compiled = compile_plan(MODEL, plan, "sqlite", lang)
    (row,) = sqlite3.connect(demo_db_file).execute(compiled.sql).fetchall()
    alone = {r: [_one(demo_db_file, {"measures": [m], "window": WINDOW, "filters": [{"dimension": "region", "values": [r]}]})
                 for m in ("gmv", "refund_rate")] for r in ("华北", "西南")}
    assert list(row) == pytest.approx([alone["华北"][0], alone["西南"][0], alone["华北"][0] - alone["西南"][0],
                                       alone["华北"][1], alone["西南"][1], alone["华北"][1] - alone["西南"][1]], abs=0.011)
    assert row[5] == round(alone_exact(demo_db_file, "华北") - alone_exact(demo_db_file, "西南"), 2)  # rounded once
    assert len(compiled.columns) == 6 and compiled.columns[0].startswith("华北")
    assert ("相差(百分点)" if lang == "zh" else "gap (pts)") in compiled.columns[-1]


def test_coded_members_are_matched_by_their_label(demo_db_file):
    plan = QueryPlan.model_validate({"measures": ["paid_orders"], "dimensions": ["city_tier"], "window": WINDOW,
                                     "difference": True, "filters": [{"dimension": "city_tier", "values": ["一线", "二线"]}]})
    first, second, gap = sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan).sql).fetchone()
    assert first > 0 and second > 0 and gap == first - second and isinstance(gap, int)


def test_the_answer_states_both_members_and_the_gap_and_charts_two_bars(demo_db_file):
    plan = QueryPlan.model_validate({"measures": ["paid_orders"], "dimensions": ["channel"], "window": WINDOW,
                                     "difference": True, "filters": [{"dimension": "channel", "values": ["app", "web"]}]})
    compiled = compile_plan(MODEL, plan, "sqlite", "zh")
    rows = [list(r) for r in sqlite3.connect(demo_db_file).execute(compiled.sql).fetchall()]
    view = PlanView(MODEL, plan, "zh")
    text = view.explain(compiled.columns, rows)
    assert all(c in text for c in compiled.columns) and f"{rows[0][2]:,}" in text
    chart = view.chart(compiled.columns, rows, "t")
    assert chart is not None and len(chart["data"]["values"]) == 2, chart


def test_the_pair_comes_in_the_order_the_question_names_it_whatever_order_the_value_index_found_it():
    from wenshu.semantic.grounding import ground

    hits = [{"table": "cities", "column": "city_name", "value": v} for v in ("上海", "北京")]  # the index's order
    question = "上个月寄到北京的单子跟寄到上海的比，客单价谁高，高多少？"
    plan = ground(QueryPlan(measures=["aov"]), MODEL, question, value_hits=hits).plan
    assert plan is not None and plan.pair() == ("city", ["北京", "上海"])  # the first named first: 北京 minus 上海
