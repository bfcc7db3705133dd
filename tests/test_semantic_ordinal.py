"""A value of a ranked dimension named with "or higher / 及以上" (semantic/ordinal.py): that member and every
one above it, on the demo's member levels (declared `ordered`); not for a dimension the model does not rank.
Pure reading on the demo's bundled model, the compiled SQL run on a real demo database; questions written here."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import Filter, QueryPlan

MODEL = parse_model(bundled_text("demo"))


@pytest.mark.parametrize(("question", "levels"), [
    ("本月金卡及以上会员的订单量", ["2", "3"]), ("银卡以上的会员上个月买了多少", ["1", "2", "3"]),
    ("paid orders last month from customers at gold level or higher", ["2", "3"]),
    ("GMV of silver members and above", ["1", "2", "3"]), ("银卡及以下会员的GMV", ["0", "1"]),
    ("GMV of members at silver or lower", ["0", "1"]), ("本月金卡会员的订单量", ["2"]),
])  # fmt: skip
def test_a_level_or_higher_names_the_levels_from_it_up(question, levels):
    m = read(MODEL, question)
    assert m.values["member_level"] == levels and (m.ranged == ["member_level"]) == (len(levels) > 1)


def test_an_unranked_dimension_keeps_its_one_value():
    m = read(MODEL, "本月已支付及以上的订单有多少")
    assert m.ranged == [] and len(m.values.get("order_status", [])) <= 1


def test_the_plan_models_one_level_widens_to_the_range_and_compiles(demo_db_file):
    question = "上个月金卡及以上会员的GMV"
    chosen = QueryPlan(measures=["gmv"], filters=[Filter(dimension="member_level", values=["2"])])
    plan = ground(chosen, MODEL, question).plan
    assert [(f.dimension, f.op, f.values) for f in plan.filters] == [("member_level", "in", ["2", "3"])]
    with sqlite3.connect(demo_db_file) as conn:
        got = conn.execute(compile_plan(MODEL, plan.model_copy(update={"window": None}), "sqlite", "zh").sql).fetchone()[0]
        expected = conn.execute("SELECT ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN customers c"
                                " ON c.customer_id = o.customer_id WHERE o.status = 1 AND c.member_level >= 2").fetchone()[0]
    assert got == expected
