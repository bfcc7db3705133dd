"""The guard's system-catalog (layer 2) and resource (layer 3) refusals, dialect by dialect, and the
legitimate near-misses that must keep passing. Real sqlglot parsing and a real SQLite catalog."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wenshu.guard import Guard
from wenshu.knowledge.introspect import load_catalog
from wenshu.settings import reset_settings_cache

G = Guard(row_limit=None, max_size=1_000_000, max_recursion=100_000)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("guard_res") / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL, city TEXT);
        CREATE TABLE nodes (id INTEGER PRIMARY KEY, parent INTEGER, name TEXT);
        CREATE TABLE pg_notes (id INTEGER PRIMARY KEY, body TEXT);
        """
    )
    conn.close()
    return load_catalog("shop", f"sqlite:///{path}")


def check(sql, dialect, catalog=None, guard=G):
    return guard.check(sql, dialect=dialect, catalog=catalog)


# ---- layer 2: system catalogs --------------------------------------------------------------
SYSTEM = [
    ("SELECT rolname, rolpassword FROM pg_authid", "postgres"),
    ("SELECT usename, passwd FROM pg_shadow", "postgres"),
    ("SELECT query FROM pg_stat_activity", "postgres"),
    ("SELECT * FROM pg_catalog.pg_roles", "postgres"),
    ('SELECT * FROM "pg_catalog"."pg_user"', "postgres"),
    ("TABLE pg_authid", "postgres"),
    ("SELECT * FROM pg_toast.pg_toast_2618", "postgres"),
    ("SELECT x.query FROM pg_stat_get_activity(NULL) AS x", "postgres"),
    ("SELECT * FROM orders WHERE id IN (SELECT oid FROM pg_user)", "postgres"),
    ("WITH u AS (SELECT * FROM pg_roles) SELECT * FROM u", "postgres"),
    ("SELECT table_name FROM information_schema.tables", "postgres"),
    ("SELECT * FROM db.information_schema.columns", "postgres"),
    ("SELECT User, Password FROM mysql.user", "mysql"),
    ("SELECT * FROM `mysql`.`user`", "mysql"),
    ("SELECT * FROM performance_schema.threads", "mysql"),
    ("SELECT * FROM sys.session", "mysql"),
    ("SELECT * FROM INFORMATION_SCHEMA.PROCESSLIST", "mysql"),
    ("SELECT sql FROM sqlite_master", "sqlite"),
    ("SELECT sql FROM main.sqlite_schema", "sqlite"),
    ("SELECT * FROM sqlite_temp_master", "sqlite"),
    ('SELECT * FROM "SQLITE_MASTER"', "sqlite"),
    ("SELECT * FROM sqlite_sequence", "sqlite"),
    ("SELECT * FROM pragma_table_info('orders')", "sqlite"),
    ("SELECT name FROM orders, pragma_database_list", "sqlite"),
    ("SELECT * FROM duckdb_settings()", "duckdb"),
    ("SELECT * FROM pragma_database_size()", "duckdb"),
    ("SELECT * FROM system.processes", "clickhouse"),
    ("SELECT * FROM system.runtime.queries", "trino"),
    ("SELECT * FROM sqlite_master", ""),
    ("SELECT * FROM pg_authid", ""),
]


@pytest.mark.parametrize("sql, dialect", SYSTEM)
def test_system_catalogs_refused_without_catalog(sql, dialect):
    out = check(sql, dialect)
    assert not out.passed and out.layer == 2 and out.code == "sql_system_table", out
    assert "system" in out.reason and out.hint_for_model


@pytest.mark.parametrize("sql, dialect", SYSTEM)
def test_system_catalogs_refused_with_catalog(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert not out.passed and out.code == "sql_system_table", out
    assert "orders" in out.hint_for_model  # the hint lists the datasource's own tables


@pytest.mark.parametrize("sql, dialect", [
    ("SELECT id, body FROM pg_notes", "postgres"),  # the datasource's own table, listed in its catalog
    ("WITH sqlite_x AS (SELECT 1 AS a) SELECT a FROM sqlite_x", "sqlite"),  # a CTE, not a system table
    ("SELECT id FROM orders WHERE city = 'information_schema'", "mysql"),
    ("SELECT sqlite_version()", "sqlite"),
    ("SELECT pg_typeof(amount) FROM orders", "postgres"),
    ("SELECT key, value FROM json_each('[1, 2]')", "sqlite"),
    ("SELECT id FROM orders", "clickhouse"),
])  # fmt: skip
def test_system_near_misses_pass(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert out.passed, out


# ---- layer 3: constant-size bombs -----------------------------------------------------------
@pytest.mark.parametrize("sql, dialect, name", [
    ("SELECT length(randomblob(1000000000))", "sqlite", "randomblob"),
    ("SELECT zeroblob(1e9)", "sqlite", "zeroblob"),
    ("SELECT hex(zeroblob(1000 * 1000 * 1000))", "sqlite", "zeroblob"),
    ("SELECT printf('%.*c', 1000000000, 'x')", "sqlite", "printf"),
    ("SELECT printf('%2000000000d', 1)", "sqlite", "printf"),
    ("SELECT length(repeat('x', 1000000000))", "postgres", "repeat"),
    ("SELECT length(repeat('x', 1000000000))", "mysql", "repeat"),
    ("SELECT repeat('x', (SELECT 10 ^ 12))", "postgres", "repeat"),
    ("SELECT repeat('x', CAST('1000000000' AS INT))", "postgres", "repeat"),
    ("SELECT lpad('x', 1000000000, 'y')", "postgres", "lpad"),
    ("SELECT rpad('x', 1000000000)", "mysql", "rpad"),
    ("SELECT space(1e9)", "mysql", "space"),
    ("SELECT format('%1000000000s', 'x')", "postgres", "format"),
    ("SELECT COUNT(*) FROM generate_series(1, 1000000000000)", "postgres", "generate_series"),
    ("SELECT SUM(x) FROM generate_series(1, 1e12) AS g(x)", "postgres", "generate_series"),
    ("SELECT generate_series(1, 10000000000, 2)", "postgres", "generate_series"),
    ("SELECT COUNT(*) FROM range(1000000000000)", "duckdb", "generate_series"),
    ("SELECT count() FROM numbers(1000000000000)", "clickhouse", "numbers"),
    ("SELECT count() FROM numbers(10, 1000000000000)", "clickhouse", "numbers"),
    ("SELECT cardinality(sequence(1, 1000000000))", "trino", "generate_series"),
    ("SELECT replicate('x', 1000000000)", "tsql", "repeat"),
])  # fmt: skip
def test_resource_bombs_refused(sql, dialect, name):
    out = check(sql, dialect)
    assert not out.passed and out.layer == 3 and out.code == "sql_resource_bomb", out
    assert f"{name}()" in out.reason and "1,000,000" in out.hint_for_model


@pytest.mark.parametrize("sql, dialect", [
    ("SELECT * FROM generate_series(1, 12) AS m(x)", "postgres"),
    ("SELECT d FROM generate_series('2024-01-01'::date, '2024-12-01'::date, INTERVAL '1 month') AS g(d)", "postgres"),
    ("SELECT generate_series(1, 2000000, 1000)", "postgres"),  # 2,000 elements
    ("SELECT repeat('-', 10)", "sqlite"),
    ("SELECT repeat('-', 10)", "mysql"),
    ("SELECT lpad(city, 12, ' ') FROM orders", "postgres"),
    ("SELECT repeat('*', CAST(amount AS INT)) FROM orders", "postgres"),  # data-dependent: not constant
    ("SELECT printf('%.2f', amount) FROM orders", "sqlite"),
    ("SELECT printf('%d', 5000000000)", "sqlite"),  # a big value, not a big width
    ("SELECT printf('%%1000000000d')", "sqlite"),  # an escaped percent sign, no width
    ("SELECT format('%s-%s', city, id) FROM orders", "postgres"),
    ("SELECT FORMAT(amount, 2) FROM orders", "mysql"),
    ("SELECT hex(randomblob(16))", "sqlite"),
    ("SELECT * FROM range(10)", "duckdb"),
    ("SELECT number FROM numbers(10)", "clickhouse"),
])  # fmt: skip
def test_resource_near_misses_pass(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert out.passed, out


# ---- layer 3: recursive CTE depth -----------------------------------------------------------
COUNT_TO = "WITH RECURSIVE c(x) AS (SELECT {start} UNION ALL SELECT {step} FROM c WHERE {cond}) SELECT COUNT(*) FROM c"


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "duckdb"])
@pytest.mark.parametrize("start, step, cond", [
    (1, "x + 1", "x < 1000000000000"),
    (1, "x + 1", "x < 1e12 AND x IS NOT NULL"),
    (1, "c.x + 1", "c.x BETWEEN 0 AND 1e12"),
    (1, "1 + x", "1e12 > x"),
    (1000000000000, "x - 1", "x > 0"),
    (0, "x + 2", "x <> 1000000"),
])  # fmt: skip
def test_recursion_bounded_by_a_huge_constant_refused(dialect, start, step, cond):
    out = check(COUNT_TO.format(start=start, step=step, cond=cond), dialect)
    assert not out.passed and out.layer == 3 and out.code == "sql_recursion_too_deep", out
    assert "100,000" in out.reason and "WHERE" in out.hint_for_model


@pytest.mark.parametrize("start, step, cond", [
    (1, "x - 1", "x < 100"),  # counts away from its bound
    (1, "x", "x < 10"),  # never changes
])  # fmt: skip
def test_recursion_that_never_ends_refused(start, step, cond):
    out = check(COUNT_TO.format(start=start, step=step, cond=cond), "sqlite")
    assert not out.passed and out.code == "sql_unbounded_recursion", out


def test_recursion_with_a_huge_limit_refused():
    out = check("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000000000) "
                "SELECT COUNT(*) FROM c", "sqlite")  # fmt: skip
    assert not out.passed and out.code == "sql_unbounded_recursion", out


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "duckdb"])
@pytest.mark.parametrize("sql", [
    COUNT_TO.format(start=1, step="x + 1", cond="x < 100"),
    COUNT_TO.format(start=1, step="x + 1", cond="x <= 100000"),
    COUNT_TO.format(start=1, step="x + 1", cond="x < 1e12 AND x < 50"),
    COUNT_TO.format(start=1, step="x * 2", cond="x < 1000000000000"),  # 40 rounds
    COUNT_TO.format(start=1, step="x + 1", cond="x < (SELECT MAX(id) FROM orders)"),
    "WITH RECURSIVE c(n, x) AS (SELECT 1, 0 UNION ALL SELECT n + 1, x FROM c WHERE x < 10 AND n < 5) SELECT n FROM c",
    "WITH RECURSIVE c AS (SELECT 1 AS x UNION ALL SELECT x + 1 FROM c LIMIT 100) SELECT x FROM c",
    "WITH RECURSIVE t(id, parent) AS (SELECT id, parent FROM nodes WHERE parent IS NULL "
    "UNION ALL SELECT n.id, n.parent FROM nodes n JOIN t ON n.parent = t.id) SELECT id FROM t",
    "WITH RECURSIVE t(id, d) AS (SELECT id, 0 FROM nodes WHERE parent IS NULL "
    "UNION ALL SELECT n.id, t.d + 1 FROM nodes n, t WHERE n.parent = t.id AND t.d < 1000000000) SELECT id FROM t",
])  # fmt: skip
def test_legitimate_recursion_passes(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert out.passed, out


# ---- configurable bounds --------------------------------------------------------------------
def test_bounds_are_configurable():
    tight = Guard(row_limit=None, max_size=10, max_recursion=5)
    assert check("SELECT repeat('-', 10)", "sqlite", guard=tight).passed
    assert check("SELECT repeat('-', 11)", "sqlite", guard=tight).code == "sql_resource_bomb"
    assert check(COUNT_TO.format(start=1, step="x + 1", cond="x < 6"), "sqlite", guard=tight).passed
    out = check(COUNT_TO.format(start=1, step="x + 1", cond="x < 100"), "sqlite", guard=tight)
    assert out.code == "sql_recursion_too_deep" and "at most 5" in out.reason


def test_bounds_come_from_the_settings_passed_in_never_the_process_wide_ones(home, monkeypatch):
    from wenshu.settings import Settings

    monkeypatch.setenv("WENSHU_GUARD_MAX_SIZE", "50")
    monkeypatch.setenv("WENSHU_GUARD_MAX_RECURSION", "20")
    reset_settings_cache()
    try:
        guard = Guard.from_settings(Settings())
        assert (guard.max_size, guard.max_recursion) == (50, 20)
        assert check("SELECT repeat('-', 51)", "postgres", guard=guard).code == "sql_resource_bomb"
        assert check(COUNT_TO.format(start=1, step="x + 1", cond="x < 30"), "postgres", guard=guard).code == (
            "sql_recursion_too_deep")
        plain = Guard(row_limit=None)  # no settings given: the defaults, not the environment
        assert (plain.max_size, plain.max_recursion) == (Settings.model_fields["guard_max_size"].default, 100_000)
    finally:
        monkeypatch.delenv("WENSHU_GUARD_MAX_SIZE")
        monkeypatch.delenv("WENSHU_GUARD_MAX_RECURSION")
        reset_settings_cache()


# ---- properties -----------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 10**13), dialect=st.sampled_from(["sqlite", "postgres", "mysql", "duckdb"]))
def test_repeat_passes_exactly_up_to_the_bound(n, dialect):
    out = check(f"SELECT repeat('x', {n})", dialect)
    assert out.passed == (n <= 1_000_000), out


@settings(max_examples=60, deadline=None)
@given(a=st.integers(-(10**7), 10**7), span=st.integers(0, 3_000_000))
def test_generate_series_passes_exactly_up_to_the_bound(a, span):
    out = check(f"SELECT COUNT(*) FROM generate_series({a}, {a + span}) AS g(x)", "postgres")
    assert out.passed == (span <= 1_000_000), out


@settings(max_examples=60, deadline=None)
@given(bound=st.integers(2, 10**9))
def test_counting_recursion_passes_exactly_up_to_the_depth(bound):
    out = check(COUNT_TO.format(start=1, step="x + 1", cond=f"x < {bound}"), "sqlite")
    assert out.passed == (bound - 1 <= 100_000), out
