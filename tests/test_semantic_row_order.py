"""The order of an answer's rows and of the values it names: a trend split by members lists each period's members in
their own order, a series per member (largest first within each period lost a validation question); a split whose first dimension is coded (city tiers) keeps the codes' order and ranks the rest within
each; values named together ("华东和华南的GMV") are one row each unless asked together (合计, combined). Read from the
question's words on the demo's bundled model, compiled and run on a real demo database against SQL written here. The
questions are written here."""

from __future__ import annotations

import sqlite3

from demo_reading import MODEL, planned

from wenshu.semantic.compile import compile_plan


def rows(db, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_a_trend_split_by_members_lists_each_periods_members_in_their_own_order(demo_db_file):
    plan = planned("今年每个月各大区的订单量")
    assert plan.grain == "month" and plan.dimensions == ["region"]
    got = rows(demo_db_file, compile_plan(MODEL, plan).sql)
    by = """SELECT r.region_name, strftime('%Y-%m', o.order_date) AS m, COUNT(*) AS n FROM orders o JOIN cities c
        ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1
        AND o.order_date >= date('now', 'start of year') GROUP BY m, r.region_name ORDER BY m, """
    want, largest = rows(demo_db_file, by + "r.region_name"), rows(demo_db_file, by + "n DESC")
    assert got == want and want != largest and len({r[1] for r in want}) > 1


def test_a_coded_first_dimension_keeps_its_codes_order_and_ranks_the_rest_within_each(demo_db_file):
    plan = planned("上个月按城市等级和渠道拆开的订单量")
    assert plan.dimensions == ["city_tier", "channel"]
    got = rows(demo_db_file, compile_plan(MODEL, plan).sql)
    want = rows(demo_db_file, """SELECT c.city_tier, o.channel, COUNT(*) AS n FROM orders o JOIN cities c
        ON c.city_id = o.city_id WHERE o.status = 1 AND o.order_date >= date('now', 'start of month', '-1 month')
        AND o.order_date < date('now', 'start of month') GROUP BY c.city_tier, o.channel ORDER BY c.city_tier, n DESC""")
    assert [(r[1], r[2]) for r in got] == [(r[1], r[2]) for r in want] and want
    assert [r[0] for r in got][:1] == ["一线"]  # the tier's label, in the codes' order


def test_values_named_together_are_one_row_each_unless_asked_together():
    plan = planned("上个月华东和华南的订单量")
    assert plan.dimensions == ["region"] and plan.filters[0].values == ["华东", "华南"]
    assert planned("上个月华东和华南加起来的订单量").dimensions == []  # one total
    assert planned("What were paid orders on the app and on web last month?").dimensions == ["channel"]
    assert planned("paid orders on the app and web combined last month").dimensions == []
