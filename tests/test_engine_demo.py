"""The demo database on every engine: loaded into SQLite, PostgreSQL, MariaDB, DuckDB, ClickHouse (chDB) and
Spark SQL (local), its catalog synced through each adapter, and the same questions (as query plans)
compiled for each engine, passed by the guard with that engine's catalog and plan check, and run
read-only, give the same rows as on SQLite."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
import sqlalchemy as sa

from demo_subset import PLANS, demo_tables
from engine_data import load_sql
from fixtures_clickhouse import chdb_url
from fixtures_clickhouse import load_tables as load_clickhouse
from fixtures_duckdb import load_tables as load_duckdb
from fixtures_spark import load_tables as load_spark
from wenshu.engines.execute import execute_readonly
from wenshu.guard import Guard
from wenshu.guard.plan import PlanLimits
from wenshu.knowledge.introspect import load_catalog
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan

MODEL = parse_model(bundled_text("demo"))
ENGINES = ["postgresql", "mariadb", "duckdb", "clickhouse", "spark"]
DB = "wenshu_demo_t"


@pytest.fixture(scope="module")
def tables(demo_db_file):
    return demo_tables(demo_db_file)


@pytest.fixture(scope="module")
def sqlite_url(tables, tmp_path_factory) -> str:
    return load_sql(f"sqlite:///{tmp_path_factory.mktemp('demo_sqlite') / 'demo.sqlite'}", tables)


def _server_db(server, tables) -> str:
    admin = sa.create_engine(server.admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {DB}")
        conn.exec_driver_sql(f"CREATE DATABASE {DB}" + (" CHARACTER SET utf8mb4" if server.engine == "mysql" else ""))
    admin.dispose()
    return load_sql(sa.make_url(server.url).set(database=DB).render_as_string(hide_password=False), tables)


@pytest.fixture(scope="module", params=ENGINES)
def engine_url(request, tables, tmp_path_factory) -> tuple[str, str]:
    name = request.param
    if name == "postgresql":
        return name, _server_db(request.getfixturevalue("pg_server"), tables)
    if name == "mariadb":
        return name, _server_db(request.getfixturevalue("mariadb_server"), tables)
    if name == "spark":
        request.getfixturevalue("spark_db")  # the process's one Spark session
        url = f"spark:///{tmp_path_factory.mktemp('demo_spark') / 'warehouse'}"
        load_spark(url, tables)
        return name, url
    if name == "clickhouse":
        request.getfixturevalue("clickhouse_db")  # chDB's one data directory for this process
        return name, load_clickhouse(chdb_url("demo"), tables)
    request.getfixturevalue("duckdb_db")  # the driver is installed (or the run fails under make test)
    return name, load_duckdb(tmp_path_factory.mktemp("demo_duckdb") / "demo.duckdb", tables)


def _plain(rows: list[list]) -> list[tuple]:
    def value(v):
        if isinstance(v, Decimal):
            return float(v)
        return v.isoformat()[:10] if isinstance(v, date) else v

    return sorted((tuple(value(v) for v in r) for r in rows), key=lambda r: tuple("" if v is None else str(v) for v in r))


def _near(a, b) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) < 0.011
    return str(a)[:10] == str(b)[:10] if a is not None and b is not None else a == b


def _run(url: str, sql: str) -> list[tuple]:
    return _plain(execute_readonly(url, sql, row_limit=5000, timeout_s=30).rows)


def test_the_same_questions_give_the_same_rows_on_every_engine(engine_url, sqlite_url):
    name, url = engine_url
    catalog = load_catalog("demo", url)
    assert {"orders", "order_items", "refunds", "daily_traffic"} <= set(catalog.table_names())
    guard = Guard(policy=None, row_limit=5000, plan_limits=PlanLimits(), plan_timeout_s=10.0)
    for plan in PLANS:
        query = QueryPlan.model_validate(plan)
        compiled = compile_plan(MODEL, query, name, "zh")
        outcome = guard.check(compiled.sql, dialect=name, catalog=catalog, url=url)
        assert outcome.passed, (plan, outcome.code, outcome.reason)
        rows = _run(url, outcome.sql)
        expected = _run(sqlite_url, compile_plan(MODEL, query, "sqlite", "zh").sql)
        assert len(rows) == len(expected) and all(
            len(r) == len(e) and all(_near(x, y) for x, y in zip(r, e)) for r, e in zip(rows, expected)
        ), (name, plan, rows[:3], expected[:3])
