"""The plan check on real engines: cheap queries pass, cross-join bombs are refused before they run."""

from __future__ import annotations

import sqlite3
import time

import pytest

from fixtures_seed import checksums, seed_sqlite
from wenshu.engines.registry import UnknownEngine
from wenshu.errors import DatasourceUnreachable, SQLExecutionError, WenshuError
from wenshu.guard.plan import PlanLimits, PlanProblem, check_plan
from wenshu.settings import Settings

LIMITS = PlanLimits(max_cost=1e6, max_rows=1e7, sqlite_max_scan_rows=1e7)
CHEAP = [
    "SELECT id, name FROM customers WHERE id = 7",
    "SELECT c.region, SUM(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region",
    "SELECT COUNT(*) FROM orders a, customers b",  # 400 thousand combinations: fine
]
BOMBS = [
    "SELECT COUNT(*) FROM orders a, orders b, orders c",
    "SELECT COUNT(*) FROM orders a CROSS JOIN orders b CROSS JOIN customers c",
]


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory):
    return seed_sqlite(tmp_path_factory.mktemp("plan") / "shop.db")


@pytest.fixture(params=["sqlite", "postgres", "mariadb"])
def url(request, sqlite_url):
    if request.param == "sqlite":
        return sqlite_url
    return request.getfixturevalue("pg_server" if request.param == "postgres" else "mariadb_server").ro_url


@pytest.mark.parametrize("sql", CHEAP)
def test_cheap_queries_pass(url, sql):
    assert check_plan(url, sql, LIMITS, timeout_s=5) is None


@pytest.mark.parametrize("sql", BOMBS)
def test_cross_join_bombs_refused_quickly(url, sql):
    started = time.monotonic()
    problem = check_plan(url, sql, LIMITS, timeout_s=5)
    assert time.monotonic() - started < 2  # the plan is read, the query never runs
    assert isinstance(problem, PlanProblem)
    assert problem.code in ("sql_plan_too_costly", "sql_plan_too_many_rows")
    assert "above the limit" in problem.reason and "cross joins" in problem.hint


def test_correlated_subquery_multiplies_by_its_outer_loop(sqlite_url):
    sql = "SELECT (SELECT COUNT(*) FROM orders i WHERE i.amount > o.amount) FROM orders o"
    assert check_plan(sqlite_url, sql, PlanLimits(sqlite_max_scan_rows=1e7)) is None  # 4 million
    problem = check_plan(sqlite_url, sql, PlanLimits(sqlite_max_scan_rows=1e6))
    assert problem is not None and "4,000,000" in problem.reason


def test_sqlite_uses_stat1_when_analyzed(tmp_path):
    url = seed_sqlite(tmp_path / "a.db")
    conn = sqlite3.connect(tmp_path / "a.db")
    conn.execute("ANALYZE")
    conn.execute("UPDATE sqlite_stat1 SET stat = '5000000' WHERE tbl = 'customers' AND idx IS NULL")
    conn.commit()
    conn.close()
    problem = check_plan(url, "SELECT COUNT(*) FROM customers a, canary b", PlanLimits(sqlite_max_scan_rows=1e6))
    assert problem is not None and "15,000,000" in problem.reason


def test_limits_come_from_settings(home, monkeypatch):
    monkeypatch.setenv("WENSHU_PLAN_MAX_COST", "123")
    monkeypatch.setenv("WENSHU_PLAN_SQLITE_MAX_SCAN_ROWS", "456")
    limits = PlanLimits.from_settings(Settings())
    assert limits.max_cost == 123 and limits.sqlite_max_scan_rows == 456 and limits.max_rows == 1e8


def test_postgres_cost_limit(pg_server):
    sql = "SELECT c.region, COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1"
    assert check_plan(pg_server.url, sql, PlanLimits(max_cost=1e6)) is None
    problem = check_plan(pg_server.url, sql, PlanLimits(max_cost=1))
    assert problem.code == "sql_plan_too_costly" and "estimated cost" in problem.reason


@pytest.mark.parametrize("engine", ["postgres", "mariadb"])
def test_explain_cannot_carry_a_write(pg_server, mariadb_server, engine):
    server = pg_server if engine == "postgres" else mariadb_server
    before = checksums(server.url)
    for sql in ("SELECT 1; DELETE FROM canary", "SELECT 1; COMMIT; DELETE FROM canary"):
        with pytest.raises(SQLExecutionError):
            check_plan(server.url, sql, LIMITS)
    for sql in ("DELETE FROM canary", "ANALYZE) DELETE FROM canary"):
        try:  # PostgreSQL explains a DELETE without running it; MariaDB may refuse it
            check_plan(server.url, sql, LIMITS)
        except WenshuError:
            pass
    assert checksums(server.url) == before


def test_failures_raise_and_engines_without_an_adapter_are_refused(sqlite_url):
    with pytest.raises(SQLExecutionError, match="no such column"):
        check_plan(sqlite_url, "SELECT nope FROM orders", LIMITS)
    with pytest.raises(SQLExecutionError):
        check_plan(sqlite_url, "SELECT 1; DELETE FROM orders", LIMITS)
    with pytest.raises(DatasourceUnreachable):  # DuckDB has a plan check: a missing file cannot be asked
        check_plan(f"duckdb:///{sqlite_url.rsplit('/', 1)[0][len('sqlite:///'):]}/missing.duckdb", "SELECT 1", LIMITS)
    with pytest.raises(UnknownEngine) as err:  # an engine nobody wired is refused, not waved through
        check_plan("oracle://u:p@localhost/db", "SELECT 1 FROM dual", LIMITS)
    assert "duckdb" in err.value.message() and "sqlite" in err.value.message()
    assert check_plan("not a url", "SELECT 1", LIMITS) is None
