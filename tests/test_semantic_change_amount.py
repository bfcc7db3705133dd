"""A comparison's change asked in the measure's own unit ("差了多少钱", "多了几单", "how many more orders") is answered
with the amount alone, no growth %; asked as a change ("变化了多少", "by how much") it keeps the growth % and adds the
amount. Read from the question's words on the demo's bundled model, compiled and run on a real demo database
against SQL written here, and told in the explanation. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, edited, planned

from wenshu.agent.plan_answer import PlanView
from wenshu.semantic.compile import compile_plan


@pytest.mark.parametrize("question", [
    "上个月的销售额跟前一个月比，多了多少钱？",
    "这周的付款订单比上周少了几单？",
    "Last month against the month before: how many more paid orders did we get?",
])  # fmt: skip
def test_a_change_asked_in_the_measures_unit_is_the_amount_alone(question):
    plan = planned(question)
    assert plan.compare == "previous" and not plan.growth
    assert plan.change_columns(points=False) == (False, True)


@pytest.mark.parametrize("question", ["上个月的销售额跟前一个月比变化了多少？", "By how much did GMV change last month against the month before?"])
def test_a_change_asked_as_a_change_keeps_the_growth_and_adds_the_amount(question):
    plan = planned(question)
    assert plan.compare == "previous" and plan.growth and plan.difference
    assert plan.change_columns(points=False) == (True, True)


def test_the_compiled_answer_is_the_two_values_and_their_gap(demo_db_file):
    plan = planned("上个月的销售额跟前一个月比，多了多少钱？")
    compiled = compile_plan(MODEL, plan)
    assert len(compiled.columns) == 3 and not any("%" in c or "环比" in c for c in compiled.columns)
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compiled.sql).fetchall()
        now, before = conn.execute("""SELECT SUM(CASE WHEN order_date >= date('now', 'start of month', '-1 month')
            THEN pay_amount END), SUM(CASE WHEN order_date < date('now', 'start of month', '-1 month') THEN pay_amount END)
            FROM orders WHERE status = 1 AND order_date >= date('now', 'start of month', '-2 months')
            AND order_date < date('now', 'start of month')""").fetchone()
    assert got == [(round(now, 2), round(before, 2), round(now - before, 2))]
    text = PlanView(MODEL, plan, "zh").explain(compiled.columns, [list(got[0])])
    assert f"{now - before:,.2f}" in text.replace("+", "") and "%" not in text


def test_a_rate_changes_by_points_whatever_the_wording():
    plan = planned("上个月退款率比前一个月高了多少？")
    assert plan.change_columns(points=True) == (True, False)


def test_a_follow_up_that_adds_the_comparison_reads_the_same_words():
    before = {"measures": ["paid_orders"], "window": {"start": "2026-05-01", "end": "2026-06-01"}}
    assert not edited(before, "跟前一个月比差了几单").growth
    assert edited(before, "跟前一个月比变化了多少").growth
