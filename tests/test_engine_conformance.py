"""The conformance suite every engine adapter passes, on the real engine: SQLite, PostgreSQL, MariaDB,
DuckDB, ClickHouse (chDB) and Spark SQL (local).

An adapter without a plan check, a time limit on execution or on sampling, catalog introspection, row
and byte caps, time-window hints or period buckets fails here, so no engine can be wired in with a
protection missing. The attack corpus (read-only proof) runs per engine in `test_guard_corpus.py`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date

import pytest
import sqlalchemy as sa

from fixtures_seed import seed_sqlite
from wenshu.engines.adapter import EngineAdapter
from wenshu.engines.execute import execute_readonly
from wenshu.engines.registry import adapter_for_url
from wenshu.errors import SQLTimeout
from wenshu.guard import Guard
from wenshu.guard.plan import PlanLimits, check_plan
from wenshu.knowledge.introspect import datasource_engine, load_catalog, read_connection
from wenshu.knowledge.time_phrases import find_windows

ENGINES = ["sqlite", "postgresql", "mariadb", "duckdb", "clickhouse", "spark"]
CROSS = "SELECT COUNT(*) FROM orders a, orders b, orders c, orders d"  # 1.6e13 row combinations
SLACK_S = 3.0  # past the time limit: the cancel timer's slack plus a loaded CI machine


@dataclass
class Case:
    name: str
    url: str

    @property
    def adapter(self) -> EngineAdapter:
        return adapter_for_url(self.url)


@pytest.fixture(scope="module")
def sqlite_shop(tmp_path_factory) -> str:
    return seed_sqlite(tmp_path_factory.mktemp("conformance") / "shop.db")


@pytest.fixture(params=ENGINES)
def case(request) -> Case:
    if request.param == "sqlite":
        return Case("sqlite", request.getfixturevalue("sqlite_shop"))
    if request.param == "postgresql":
        return Case("postgresql", request.getfixturevalue("pg_server").url)
    if request.param == "mariadb":
        return Case("mariadb", request.getfixturevalue("mariadb_server").url)
    return Case(request.param, request.getfixturevalue(f"{request.param}_db").url)


def run(case: Case, sql: str, **kw):
    kw.setdefault("row_limit", 100)
    kw.setdefault("timeout_s", 5.0)
    return execute_readonly(case.url, sql, **kw)


def test_the_adapter_is_complete(case):
    adapter = case.adapter
    assert adapter.name and adapter.label and adapter.dialect and adapter.backends
    assert adapter.denied_functions, "no denied functions"
    assert set(adapter.buckets) == {"day", "week", "month", "quarter", "year"}
    assert adapter.weekday, "no day of the week"
    for hook in ("estimate", "bounded_scalar"):
        assert getattr(type(adapter), hook) is not getattr(EngineAdapter, hook), f"{adapter.name} has no {hook}"


def test_rows_are_capped_with_the_true_count(case):
    # the count shares the query's time limit: a generous one, so a busy machine (Spark starts a job for
    # each) does not turn this into a test of speed; the limit itself is tested below
    res = run(case, "SELECT id, amount FROM orders ORDER BY id", row_limit=50, timeout_s=60.0)
    assert res.truncated and len(res.rows) == 50 and res.row_count == 2000
    assert res.rows[:2] == [[1, 47.5], [2, 84.5]]


def test_bytes_are_capped(case):
    res = run(case, "SELECT id, name, phone, region FROM customers ORDER BY id", row_limit=1000, max_bytes=2000)
    assert res.truncated and 0 < len(res.rows) < 200


def test_a_long_query_is_stopped_near_the_time_limit(case):
    started = time.monotonic()
    with pytest.raises(SQLTimeout):
        run(case, CROSS, timeout_s=1.0)
    assert time.monotonic() - started < 1.0 + SLACK_S
    assert run(case, "SELECT COUNT(*) FROM canary").rows == [[3]]  # the engine is usable right after


def test_the_plan_check_refuses_a_cross_join_and_passes_a_lookup(case):
    problem = check_plan(case.url, "SELECT COUNT(*) FROM orders a, orders b, orders c", PlanLimits(), 5.0)
    assert problem is not None and problem.code.startswith("sql_plan_"), problem
    assert check_plan(case.url, "SELECT name FROM customers WHERE id = 7", PlanLimits(), 5.0) is None
    catalog = load_catalog("conformance", case.url)
    guard = Guard(policy=None, row_limit=100, plan_limits=PlanLimits(), plan_timeout_s=5.0)
    ok = guard.check("SELECT name FROM customers WHERE id = 7", dialect=case.name, catalog=catalog, url=case.url)
    assert ok.passed, ok
    assert run(case, ok.sql).rows == [["客户7"]]


def test_the_catalog_is_read_with_counts_samples_and_keys(case):
    catalog = load_catalog("conformance", case.url)
    assert {"customers", "orders", "canary"} <= set(catalog.table_names())
    orders = catalog.table("orders")
    assert [c.name for c in orders.columns] == ["id", "customer_id", "amount", "status", "created_at"]
    assert orders.row_count == 2000
    status = orders.column("status")
    assert status.low_cardinality and set(status.samples) == {"paid", "shipped", "refunded"}
    region = catalog.table("customers").column("region")
    assert "华东" in region.samples


def test_sampling_has_a_time_limit(case):
    engine = datasource_engine("conformance", case.url)
    try:
        with read_connection(engine) as conn:
            started = time.monotonic()
            assert case.adapter.bounded_scalar(conn, sa.text(CROSS), 0.5) is None
            assert time.monotonic() - started < 0.5 + SLACK_S
            assert case.adapter.bounded_scalar(conn, sa.text("SELECT COUNT(*) FROM canary"), 5.0) == 3
    finally:
        engine.dispose()


@pytest.mark.parametrize("phrase", ["上个月", "本月", "最近7天", "去年", "last quarter"])
def test_time_window_hints_are_sql_the_engine_runs(case, phrase):
    window = find_windows(f"{phrase} 的订单数", case.name)[0]
    res = run(case, f"SELECT COUNT(*) FROM orders WHERE {window.condition('created_at')}")
    assert res.rows[0][0] == 0  # the seed's orders are all in 2024


@pytest.mark.parametrize("grain", ["day", "month", "quarter", "year"])
def test_period_buckets_read_the_same_on_every_engine(case, grain, sqlite_shop):
    def buckets(url: str) -> list:
        label = adapter_for_url(url).bucket(grain, "created_at")
        sql = f"SELECT {label} AS p, COUNT(*) AS n FROM orders GROUP BY {label} ORDER BY p"
        return execute_readonly(url, sql, row_limit=1000, timeout_s=10).rows

    assert buckets(case.url) == buckets(sqlite_shop)


@pytest.mark.parametrize("part", ["day_of_week", "day_type"])
def test_date_parts_read_the_same_on_every_engine_as_the_iso_calendar(case, part, sqlite_shop):
    days = execute_readonly(sqlite_shop, "SELECT created_at FROM orders", row_limit=100_000, timeout_s=10).rows
    expected: dict[str, int] = {}
    for (day,) in days:
        iso = date.fromisoformat(str(day)[:10]).isoweekday()
        code = str(iso) if part == "day_of_week" else "1" if iso >= 6 else "0"
        expected[code] = expected.get(code, 0) + 1
    label = case.adapter.date_part(part, "created_at")
    sql = f"SELECT {label} AS p, COUNT(*) AS n FROM orders GROUP BY {label} ORDER BY p"
    assert dict(run(case, sql, row_limit=1000, timeout_s=10).rows) == expected


def test_the_hour_of_the_day_reads_the_same_on_every_engine_from_stored_text(case):
    label = case.adapter.date_part("hour_of_day", "t")
    rows = "SELECT '2026-03-01 17:45:09' AS t UNION ALL SELECT '2026-03-02 04:05:00' UNION ALL SELECT '2026-03-02 00:00:00'"
    sql = f"SELECT {label} AS h, COUNT(*) AS n FROM ({rows}) s GROUP BY {label} ORDER BY h"
    assert [tuple(r) for r in run(case, sql, row_limit=10, timeout_s=10).rows] == [("00", 1), ("04", 1), ("17", 1)]


def test_a_url_whose_driver_is_missing_names_the_package_and_stores_nothing(home):
    import json

    from typer.testing import CliRunner

    from wenshu.cli.app import app

    runner = CliRunner()
    out = runner.invoke(app, ["db", "add", "pg", "postgresql+pg8000://reader@127.0.0.1:1/sales"])
    assert out.exit_code != 0
    assert "driver_missing" in out.output and "pip install pg8000" in out.output
    listed = runner.invoke(app, ["db", "list", "--json"])
    assert "pg" not in [d["name"] for d in json.loads(listed.stdout)]
