"""Members of a dimension's own table with nothing in a period and a place the members do not have ("上个月华东有哪些品类
一件都没卖出去", "which cities got no paid orders through the app last week"): the place and the period scope the rows
of the presence, not the members; the list is the table's records with no rows so scoped, with no model call, and
agrees with the same sets built in Python from the demo database. The questions are written here."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

from wenshu.contracts import AgentRequest
from wenshu.semantic.plan import QueryPlan


def _sets(db_file: str, sql: str, args=()) -> set:
    with sqlite3.connect(db_file) as db:
        return {r[0] for r in db.execute(sql, args)}


def _last_week() -> tuple[str, str]:
    monday = date.today() - timedelta(days=date.today().weekday() + 7)
    return monday.isoformat(), (monday + timedelta(days=7)).isoformat()


def test_categories_with_nothing_sold_in_a_region_on_a_day_are_scoped_by_the_rows(plan_agent, fake_model, demo_db_file):
    resp = plan_agent.ask(AgentRequest(message="上周二东北大区有哪些品类一件都没卖出去？"))
    assert resp.error is None, resp.error
    plan = QueryPlan.model_validate(resp.plan["plan"])
    assert plan.records == "categories" and plan.window is None and not fake_model.calls
    (had,) = plan.presence
    assert had.measure == "units_sold" and [(f.dimension, f.values) for f in had.filters] == [("region", ["东北"])]
    tuesday = (date.fromisoformat(_last_week()[0]) + timedelta(days=1)).isoformat()
    sold = _sets(demo_db_file, "SELECT DISTINCT p.category_id FROM order_items oi JOIN orders o ON o.order_id = oi.order_id "
                 "JOIN products p ON p.product_id = oi.product_id JOIN cities c ON c.city_id = o.city_id "
                 "JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1 AND r.region_name = '东北' "
                 "AND o.order_date = ?", (tuesday,))
    want = _sets(demo_db_file, "SELECT category_name FROM categories WHERE category_id NOT IN (%s)"
                 % (",".join(map(str, sold)) or "NULL"))
    assert {r[0] for r in resp.rows} == want and resp.columns == ["品类"]


def test_cities_with_no_paid_orders_through_a_channel_last_week(plan_agent, fake_model, demo_db_file):
    resp = plan_agent.ask(AgentRequest(message="Which cities got no paid orders through the mini-program last week?"))
    assert resp.error is None, resp.error
    plan = QueryPlan.model_validate(resp.plan["plan"])
    (had,) = plan.presence
    assert plan.records == "cities" and [(f.dimension, f.values) for f in had.filters] == [("channel", ["mini_program"])]
    start, end = _last_week()
    ordered = _sets(demo_db_file, "SELECT DISTINCT city_id FROM orders WHERE status = 1 AND channel = 'mini_program' "
                    "AND order_date >= ? AND order_date < ?", (start, end))
    want = _sets(demo_db_file, "SELECT city_name FROM cities") - _sets(
        demo_db_file, "SELECT city_name FROM cities WHERE city_id IN (%s)" % (",".join(map(str, ordered)) or "NULL"))
    assert {r[0] for r in resp.rows} == want and not fake_model.calls


def test_a_city_the_value_index_found_scopes_the_rows_of_categories_with_nothing_sold():
    from demo_reading import MODEL
    from wenshu.semantic.presence import said_presence
    from wenshu.semantic.rows_scope import scoped

    question = "上个月杭州有哪些品类一件都没卖出去"
    said = said_presence(MODEL, question)
    hits = [{"table": "cities", "column": "city_name", "value": "杭州"}]
    got = scoped(MODEL, said, said.members, hits)
    assert [(f.dimension, f.values) for f in got.presence[0].filters] == [("city", ["杭州"])]
    assert "杭州" not in got.rest and "品类" in got.rest


def test_a_value_inside_the_clause_scopes_its_rows():
    from demo_reading import MODEL
    from wenshu.semantic.presence import said_presence
    from wenshu.semantic.rows_scope import scoped

    for question, code in [("Which cities have not had a single paid web order in the last 10 days?", "web"),
                           ("Which cities did not get a single mini-program order last week?", "mini_program")]:
        said = said_presence(MODEL, question)
        assert said is not None and said.members == ["cities"], question
        got = scoped(MODEL, said, said.members)
        assert [(f.dimension, f.values) for f in got.presence[0].filters] == [("channel", [code])], question
    assert said_presence(MODEL, "Which customers have not placed a single big order this year?") is None  # no value
