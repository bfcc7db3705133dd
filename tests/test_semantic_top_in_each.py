"""The top N within each member of a split ("每个品类卖得最多的两个品牌", "the top product by units in each region"):
read by the rules against the demo's bundled model, compiled with a row number inside each group, and run on the demo
database against a ranking written here in Python; the questions are written here."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from demo_reading import MODEL, planned
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import prefer_finer


def _rows(plan, db_file: str, lang: str = "zh") -> list[tuple]:
    plan, _ = prefer_finer(plan, MODEL)
    with sqlite3.connect(db_file) as db:
        return db.execute(compile_plan(MODEL, plan, "sqlite", lang).sql).fetchall()


def _by_group(db_file: str, window, group: str, member: str) -> dict[str, list[tuple[str, float]]]:
    sql = (f"SELECT {group}, {member}, SUM(oi.quantity) FROM order_items oi JOIN orders o ON o.order_id = oi.order_id "
           "JOIN products p ON p.product_id = oi.product_id JOIN categories c ON c.category_id = p.category_id "
           "WHERE o.status = 1 AND o.order_date >= ? AND o.order_date < ? GROUP BY 1, 2")
    out = defaultdict(list)
    with sqlite3.connect(db_file) as db:
        for g, m, v in db.execute(sql, (window.start.isoformat(), window.end.isoformat())):
            out[g].append((m, v))
    return {g: sorted(ms, key=lambda x: -x[1]) for g, ms in out.items()}


def test_the_top_two_in_each_group_are_each_groups_own_two_largest(demo_db_file):
    plan = planned("上个月每个品类卖出件数最多的两个品牌")
    assert plan.dimensions == ["category", "brand"] and plan.limit == 2 and plan.limit_per
    got = _rows(plan, demo_db_file)
    want = _by_group(demo_db_file, plan.window, "c.category_name", "p.brand")
    assert {g for g, _, _ in got} == set(want)
    for g, members in want.items():
        assert [(b, v) for c, b, v in got if c == g] == members[:2]
    assert [c for c, _, _ in got] == sorted((c for c, _, _ in got), key=[c for c, _, _ in got].index)  # group by group


def test_one_in_each_group_comes_largest_first_and_english_reads_in_each(demo_db_file):
    plan = planned("Which brand sold the most units in each category last month?")
    assert plan.dimensions == ["category", "brand"] and plan.limit == 1 and plan.limit_per
    got = _rows(plan, demo_db_file, "en")
    want = _by_group(demo_db_file, plan.window, "c.category_name", "p.brand")
    assert len(got) == len(want) and [v for _, _, v in got] == sorted((v for _, _, v in got), reverse=True)
    assert all(want[c][0] == (b, v) for c, b, v in got)


def test_a_top_n_with_no_each_word_is_the_top_n_overall():
    plan = planned("上个月卖出件数最多的两个品牌是哪些品类的")
    assert not plan.limit_per
    plan = planned("上个月各品类的销量")
    assert not plan.limit_per and plan.limit is None
