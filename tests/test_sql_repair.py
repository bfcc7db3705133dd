"""Deterministic repairs of misplaced columns and missing key joins, on the real demo catalog."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.contracts import AgentRequest
from wenshu.knowledge.sync import current_catalog
from wenshu.sql.repair import repair_sql


@pytest.fixture
def catalog(store):
    return current_catalog(store, "demo")


def rows(home, sql):
    with sqlite3.connect(home / "data" / "demo.sqlite") as conn:
        return conn.execute(sql).fetchall()


def test_a_table_used_but_never_joined_is_joined_on_its_key(catalog, home):
    got = repair_sql("SELECT COUNT(*) FROM orders WHERE status = 1 AND cities.city_name = '成都'", catalog, "sqlite")
    assert got.notes == ["JOIN cities ON orders.city_id = cities.city_id"]
    expected = rows(home, "SELECT COUNT(*) FROM orders o JOIN cities c ON c.city_id = o.city_id "
                          "WHERE o.status = 1 AND c.city_name = '成都'")  # fmt: skip
    assert rows(home, got.sql) == expected and expected[0][0] > 0


def test_a_column_on_the_wrong_alias_moves_to_the_joined_table_that_has_it(catalog, home):
    sql = ("SELECT p.product_name, p.category_name FROM products p JOIN categories c "
           "ON p.category_id = c.category_id ORDER BY p.unit_price DESC LIMIT 3")  # fmt: skip
    got = repair_sql(sql, catalog, "sqlite")
    assert got.notes == ["p.category_name -> c.category_name"]
    assert len(rows(home, got.sql)) == 3


def test_an_unqualified_column_reaches_its_table_through_the_key_path(catalog, home):
    got = repair_sql("SELECT region_name, SUM(pay_amount) AS gmv FROM orders GROUP BY region_name", catalog, "sqlite")
    assert got.notes[:2] == ["JOIN cities ON orders.city_id = cities.city_id",
                             "JOIN regions ON cities.region_id = regions.region_id"]  # fmt: skip
    assert len(rows(home, got.sql)) == len(rows(home, "SELECT * FROM regions"))


def test_full_table_name_for_an_aliased_table_uses_the_alias(catalog):
    got = repair_sql("SELECT orders.status, COUNT(*) FROM orders o GROUP BY orders.status", catalog, "sqlite")
    assert "o.status" in got.sql and "orders.status" not in got.sql


@pytest.mark.parametrize("sql", [
    "SELECT o.order_id FROM orders o WHERE o.status = 1",  # already right
    "SELECT status AS s, COUNT(*) FROM orders GROUP BY s",  # output alias
    "SELECT customer_name FROM customers c WHERE EXISTS "
    "(SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)",  # correlated reference
    "SELECT channel, SUM(orders.pay_amount) FROM daily_traffic GROUP BY channel",  # no key path: the guard explains
    "SELECT x.a FROM (SELECT 1 AS a) x",  # derived table: columns unknown here
    "SELECT name FROM no_such_table",
    "not sql at all (",
    "SELECT cities.city_name FROM orders; DROP TABLE orders",  # stacked: the guard refuses it whole
])
def test_valid_or_unfixable_sql_is_left_exactly_as_written(catalog, sql):
    got = repair_sql(sql, catalog, "sqlite")
    assert not got.changed and got.sql == sql


def test_the_agent_runs_the_repaired_sql_without_another_model_round(agent, fake_model, home):
    fake_model.queue("SELECT cities.city_name AS 城市, COUNT(*) AS 订单量 FROM orders WHERE status = 1 "
                     "GROUP BY cities.city_name")  # fmt: skip
    resp = agent.ask(AgentRequest(message="每个城市的订单量"))
    assert resp.error is None and resp.usage.llm_calls == 1
    assert "JOIN cities" in resp.sql
    validate = next(t for t in resp.trace if t.node == "validate")
    assert validate.detail.startswith("repaired: JOIN cities")
    assert resp.row_count == len(rows(home, "SELECT DISTINCT city_id FROM orders"))


def test_names_spelt_differently_are_respelt(catalog, home):
    got = repair_sql("SELECT COUNT(*) FROM Orders o WHERE o.orderdate >= '2000-01-01'", catalog, "sqlite")
    assert got.notes == ["o.orderdate -> o.order_date"]
    assert rows(home, got.sql) == rows(home, "SELECT COUNT(*) FROM orders")
    got = repair_sql("SELECT city_tier, COUNT(*) FROM order_s JOIN cities USING (city_id) GROUP BY citytier", catalog, "sqlite")
    assert got.notes[:2] == ["order_s -> orders", "citytier -> city_tier"]


def test_a_join_comparing_a_column_with_itself_uses_the_key(catalog, home):
    got = repair_sql("SELECT c.city_name, COUNT(*) FROM orders o JOIN cities c ON o.city_id = o.city_id "
                     "GROUP BY c.city_name", catalog, "sqlite")  # fmt: skip
    assert got.notes == ["o.city_id = o.city_id -> o.city_id = c.city_id"]
    assert len(rows(home, got.sql)) == len(rows(home, "SELECT DISTINCT city_id FROM orders"))
