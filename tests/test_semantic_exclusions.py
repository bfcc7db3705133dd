"""Values a question leaves out: "除了…以外", "…除外", "excluding", "leave out", several values joined, and
"其他" as the remaining members once something is left out. Pure reading on the demo's bundled model; the
compiled SQL run on a real demo database; the questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))


def _filters(plan: QueryPlan) -> list[tuple]:
    return [(f.dimension, f.op, sorted(f.values)) for f in plan.filters]


@pytest.mark.parametrize(("question", "expected"), [
    ("本月除了华南以外的订单量", [("region", "not_in", ["华南"])]),
    ("本月订单量，华南、华北除外", [("region", "not_in", ["华北", "华南"])]),
    ("paid orders this month excluding the app channel", [("channel", "not_in", ["app"])]),
    ("paid orders this month, leave out South China and North China", [("region", "not_in", ["华北", "华南"])]),
    ("本月华南的订单量", [("region", "in", ["华南"])]),  # nothing left out
])  # fmt: skip
def test_left_out_values_filter_with_not_in(question, expected):
    assert _filters(ground(QueryPlan(measures=["paid_orders"]), MODEL, question).plan) == expected


def test_the_rest_after_a_left_out_value_is_no_value_of_its_own():
    question = "本月除了手机数码，其他品类一共卖了多少"  # 其他 is also the demo's fourth city tier
    m = read(MODEL, question)
    assert m.excluded == ["category"] and m.values == {"category": ["手机数码"]}


def test_a_left_out_region_totals_the_others(demo_db_file):
    plan = ground(QueryPlan(measures=["gmv"]), MODEL, "GMV except for East China").plan
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan, "sqlite", "en").sql).fetchone()[0]
        expected = conn.execute("SELECT ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN cities c ON c.city_id = o.city_id"
                                " JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1"
                                " AND r.region_name <> '华东'").fetchone()[0]
    assert got == expected


def test_a_follow_up_leaving_out_a_value_of_the_previous_filter():
    before = QueryPlan(measures=["gmv"], dimensions=["channel"])
    question = "那除了华东以外呢"
    plan = edit(before, read(MODEL, question), None, question, MODEL)
    assert plan.dimensions == ["channel"] and _filters(plan) == [("region", "not_in", ["华东"])]

