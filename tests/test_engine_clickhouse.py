"""ClickHouse through its engine adapter, on a real engine: chDB (ClickHouse embedded in the process).

Read-only proof at the engine layer (the guard is not involved): writes, DDL, settings changes, several
statements, INTO OUTFILE and table functions that reach files, URLs or servers are refused and the data
stays unchanged; a long statement stops at the time limit; results are capped with their true count;
the plan estimate sees a cross join; the catalog is read through SQLAlchemy's inspector.
"""

from __future__ import annotations

import resource
import sqlite3
import time
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine_data import sqlite_tables
from fixtures_clickhouse import chdb_root, chdb_url, load_tables
from fixtures_seed import seed_rows
from wenshu.engines import registry
from wenshu.engines.clickhouse import ClickHouseAdapter, worst_rows
from wenshu.engines.execute import execute_readonly
from wenshu.errors import DatasourceUnreachable, SQLExecutionError, SQLTimeout
from wenshu.knowledge.introspect import read_catalog, read_connection


SLACK_S = 3.0
CROSS = "SELECT count() FROM orders a, orders b, orders c, orders d"  # 1.6e13 row combinations


@pytest.fixture(scope="module")
def url(clickhouse_db) -> str:
    return clickhouse_db.url


def run(url: str, sql: str, **kw):
    kw.setdefault("row_limit", 100)
    kw.setdefault("timeout_s", 5.0)
    return execute_readonly(url, sql, **kw)


def test_the_url_finds_the_adapter(url):
    adapter = registry.adapter_for_url(url)
    assert isinstance(adapter, ClickHouseAdapter)
    assert registry.adapter_for_url("clickhousedb://u:p@host:8123/db") is adapter
    assert set(adapter.buckets) == {"day", "week", "month", "quarter", "year"}


def test_typed_values_and_the_true_count_of_a_capped_result(url):
    res = run(url, "SELECT id, customer_id, amount, status, created_at FROM orders ORDER BY id", row_limit=50)
    assert res.truncated and len(res.rows) == 50 and res.row_count == 2000
    assert res.columns == ["id", "customer_id", "amount", "status", "created_at"]
    first = seed_rows()["orders"][0]
    assert res.rows[0] == [first[0], first[1], first[2], first[3], first[4]]  # Decimal -> float, Date -> ISO
    assert run(url, "SELECT name, region FROM customers WHERE id = 7").rows == [["客户7", "西南"]]
    assert run(url, "SELECT count() FROM canary").rows == [[3]]


def test_bytes_are_capped(url):
    res = run(url, "SELECT id, name, phone, region FROM customers ORDER BY id", row_limit=1000, max_bytes=2000)
    assert res.truncated and 0 < len(res.rows) < 200


def test_the_engine_stops_sending_past_the_row_limit(url):
    """The driver reads whole results: without max_result_rows this would be 10 GB in this process.
    Measured by the process's peak memory, not the clock: a loaded CI machine makes any time bound flaky."""
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = run(url, "SELECT number, repeat('x', 10000) AS s FROM numbers(1e6)", row_limit=10, timeout_s=30.0)
    assert res.truncated and len(res.rows) == 10 and res.row_count == 1_000_000
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_kib < 1024 * 1024  # grew by < 1 GiB


WRITES = [
    "INSERT INTO canary VALUES (9, 'x')",
    "INSERT INTO canary SELECT * FROM canary",
    "ALTER TABLE canary UPDATE token = 'x' WHERE 1",
    "ALTER TABLE canary DELETE WHERE 1",
    "ALTER TABLE canary ADD COLUMN z Int8",
    "DELETE FROM canary WHERE 1",
    "DROP TABLE canary",
    "TRUNCATE TABLE canary",
    "CREATE TABLE evil (a Int8) ENGINE = Memory",
    "CREATE TEMPORARY TABLE evil (a Int8)",
    "RENAME TABLE canary TO evil",
    "DETACH TABLE canary",
    "OPTIMIZE TABLE orders FINAL",
    "SYSTEM DROP MARK CACHE",
    "KILL QUERY WHERE 1",
    "SET readonly = 0",
    "SET max_execution_time = 0",
    "SELECT 1 SETTINGS readonly = 0",
    "SELECT count() FROM orders SETTINGS max_execution_time = 0",
    "SELECT 1; DROP TABLE canary",
    "DROP TABLE canary; SELECT 1",
    "SELECT 1 INTO OUTFILE '{outfile}'",
    "INSERT INTO FUNCTION file('{outfile}', 'CSV') SELECT 1",
    "SELECT * FROM python(1)",
]


@pytest.mark.parametrize("sql", WRITES)
def test_writes_are_refused_by_the_engine_and_the_data_is_unchanged(clickhouse_db, sql, tmp_path):
    before = clickhouse_db.checksums()
    outfile = tmp_path / "out.csv"
    with pytest.raises(SQLExecutionError):
        run(clickhouse_db.url, sql.format(outfile=outfile))
    assert clickhouse_db.checksums() == before
    assert not outfile.exists()
    assert run(clickhouse_db.url, "SELECT count() FROM canary").rows == [[3]]


# readonly = 1 lets these through on chDB: INTO OUTFILE (written by ClickHouse local itself), KILL QUERY
# (allowed to read-only users), Python() (a setting of its own: allow_python_table_function = 0).
ENGINE_LETS_THROUGH = ("OUTFILE", "KILL", "python")


@pytest.mark.parametrize("sql", [w for w in WRITES if not any(k in w for k in ENGINE_LETS_THROUGH)])
def test_the_locked_session_alone_refuses_writes(clickhouse_db, sql):
    """Past the statement check (straight to the driver): chDB's own readonly = 1 refuses them."""
    from wenshu.engines.connections import readonly_connection

    before = clickhouse_db.checksums()
    with readonly_connection(ClickHouseAdapter(), clickhouse_db.url, 5.0) as (conn, _):
        cursor = conn.connection.driver_connection.cursor()
        with pytest.raises(Exception, match="readonly mode|READONLY") as info:
            cursor.execute(sql.format(outfile="/nonexistent/x"))
        assert getattr(info.value, "code", None) == 164  # READONLY
    assert clickhouse_db.checksums() == before


@pytest.mark.parametrize("sql", [
    "SELECT * FROM file('/etc/passwd', 'LineAsString')",
    "SELECT * FROM url('http://127.0.0.1:9/x.csv', 'CSV', 'a String')",
    "SELECT * FROM remote('127.0.0.1:9000', system.one)",
    "SELECT * FROM s3('http://127.0.0.1:9/bucket/k.csv', 'CSV', 'a String')",
    "SELECT * FROM executable('ls', 'TSV', 'a String')",
    "SELECT * FROM mysql('127.0.0.1:3306', 'd', 't', 'u', 'p')",
])  # fmt: skip
def test_denied_table_functions_fail_at_execution_too(url, sql):
    with pytest.raises(SQLExecutionError) as info:
        run(url, sql)
    assert info.value.code == "sql_refused", info.value  # readonly = 1: "Cannot execute query in readonly mode"


def test_the_scalar_file_function_is_left_to_the_guard(url):
    """chDB (ClickHouse local) reads any file through the scalar file() even with readonly = 1: only
    the guard's denied functions stop it. Pinned here so a chDB that starts refusing it is noticed."""
    assert "file" in ClickHouseAdapter.denied_functions
    assert run(url, "SELECT length(file('/etc/hostname')) > 0").rows == [[True]]


@pytest.mark.parametrize("sql", [CROSS, "SELECT count() FROM numbers(1e12)"])
def test_a_long_query_is_stopped_near_the_time_limit(url, sql):
    started = time.monotonic()
    with pytest.raises(SQLTimeout):
        run(url, sql, timeout_s=1.0)
    assert time.monotonic() - started < 1.0 + SLACK_S
    assert run(url, "SELECT count() FROM canary").rows == [[3]]  # the engine is usable right after


def test_the_plan_estimate_sees_a_cross_join(url):
    adapter = ClickHouseAdapter()
    assert adapter.estimate(url, "SELECT count() FROM orders a, orders b, orders c", 5.0).rows > 1e8
    assert adapter.estimate(url, "SELECT count() FROM orders a CROSS JOIN orders b", 5.0).rows >= 4e6
    assert adapter.estimate(url, "SELECT name FROM customers WHERE id = 7", 5.0).rows < 1e4
    joined = adapter.estimate(url, "SELECT c.region, sum(o.amount) FROM orders o JOIN customers c "
                                   "ON o.customer_id = c.id GROUP BY c.region", 5.0)
    assert 2000 <= joined.rows < 1e5
    assert adapter.estimate(url, "SELECT count() FROM numbers(1e12)", 5.0).rows >= 1e12
    with pytest.raises(SQLExecutionError):
        adapter.estimate(url, "SELECT 1; DROP TABLE canary", 5.0)


def test_the_statement_shape():
    reads = {"orders": 6000.0}  # three reads of orders
    assert worst_rows("SELECT 1 FROM orders a, orders b, orders c", reads, {}) == 2000.0**3
    assert worst_rows("SELECT 1 FROM orders a JOIN orders b ON a.id = b.id", {"orders": 4000.0}, {}) == 2000.0
    assert worst_rows("SELECT 1 FROM orders a JOIN orders b ON 1 = 1", {"orders": 4000.0}, {}) == 2000.0**2
    assert worst_rows("SELECT 1 FROM orders a JOIN orders b ON a.id <> b.id", {"orders": 4000.0}, {}) == 2000.0**2
    aggregate = "SELECT 1 FROM (SELECT count() FROM big) x, orders"
    assert worst_rows(aggregate, {"orders": 10.0}, {"big": 1e9}) == 1e9  # the scan of big; not 1e10
    assert worst_rows("SELECT * FROM numbers(10, 100) AS n", {}, {}) == 100.0
    assert worst_rows("not SQL ((", {}, {}) == 0.0


def test_the_catalog_is_read_through_the_inspector(url):
    engine = sa.create_engine(url)
    try:
        catalog = read_catalog(engine, "ch")
    finally:
        engine.dispose()
    assert {"customers", "orders", "canary"} <= set(catalog.table_names())
    orders = catalog.table("orders")
    assert [c.name for c in orders.columns] == ["id", "customer_id", "amount", "status", "created_at"]
    assert [c.type for c in orders.columns][0].upper().startswith("INT")
    assert orders.row_count == 2000
    status = orders.column("status")
    assert status.low_cardinality and set(status.samples) == {"paid", "shipped", "refunded"}
    assert "华东" in catalog.table("customers").column("region").samples


def test_sampling_has_a_time_limit_and_row_estimates(url):
    adapter = ClickHouseAdapter()
    engine = sa.create_engine(url)
    try:
        with read_connection(engine) as conn:
            started = time.monotonic()
            assert adapter.bounded_scalar(conn, sa.text(CROSS), 0.5) is None
            assert time.monotonic() - started < 0.5 + SLACK_S
            assert adapter.bounded_scalar(conn, sa.text("SELECT count() FROM canary"), 5.0) == 3
            assert adapter.row_estimate(conn, "orders") == 2000
            assert adapter.row_estimate(conn, "no_such_table") is None
            query = sa.select(adapter.sample_value(sa.column("name"))).select_from(sa.table("customers")).limit(1)
            assert conn.execute(query).scalar().startswith("客户")
            # chDB returns a statement's partial output to the next statement after it failed mid-result
            with pytest.raises(sa.exc.DBAPIError):
                conn.execute(sa.text("SELECT number, throwIf(number = 5000) FROM numbers(10000) "
                                     "SETTINGS max_block_size = 100")).fetchall()
            adapter.after_failed_probe(conn)
            assert conn.execute(sa.text("SELECT count() FROM canary")).scalar() == 3
    finally:
        engine.dispose()


@pytest.mark.parametrize(("grain", "label"), [
    ("day", "2026-11-02"), ("week", "2026-11-02"), ("month", "2026-11"), ("quarter", "2026-Q4"), ("year", "2026"),
])  # fmt: skip
def test_period_buckets_and_literals(url, grain, label):
    adapter = ClickHouseAdapter()
    day = adapter.date_literal(date(2026, 11, 2))
    for column in (day, f"toDateTime({day})", "'2026-11-02'"):
        assert run(url, f"SELECT {adapter.bucket(grain, column)}").rows == [[label]]
    text = adapter.as_text(adapter.round2("2.345"))
    assert run(url, f"SELECT {text}, {adapter.as_text('NULL')}").rows == [["2.35", None]]


def test_weeks_are_named_by_their_monday_across_the_new_year(url):
    adapter = ClickHouseAdapter()
    rows = run(url, "SELECT " + ", ".join(adapter.bucket("week", adapter.date_literal(d)) for d in (
        date(2026, 12, 31), date(2027, 1, 1), date(2027, 1, 4)))).rows
    assert rows == [["2026-12-28", "2026-12-28", "2027-01-04"]]


def test_the_server_mode_settings_hold_on_the_engine(clickhouse_db, monkeypatch):
    """A server gets the read-only settings with every statement instead of a locked session: run that
    mode on chDB (same settings, sent as a SETTINGS clause) to prove ClickHouse accepts and enforces them."""
    import wenshu.engines.clickhouse as ch
    from wenshu.engines.connections import engine_for, readonly_connection

    monkeypatch.setattr(ch, "_is_chdb", lambda dialect: False)
    url = clickhouse_db.url.replace("chdb://", "chdb:///", 1)  # the same directory, an engine of its own
    adapter = ClickHouseAdapter()
    before = clickhouse_db.checksums()
    with pytest.raises(SQLExecutionError) as info:
        adapter.execute(url, "INSERT INTO canary VALUES (9, 'x')", row_limit=10, timeout_s=5.0, max_bytes=10**6)
    assert info.value.code == "sql_refused"
    with pytest.raises(SQLExecutionError):
        adapter.execute(url, "SELECT 1 SETTINGS max_execution_time = 0", row_limit=10, timeout_s=5.0, max_bytes=10**6)
    started = time.monotonic()
    with pytest.raises(SQLTimeout):
        adapter.execute(url, "SELECT count() FROM numbers(1e12)", row_limit=10, timeout_s=1.0, max_bytes=10**6)
    assert time.monotonic() - started < 1.0 + SLACK_S
    res = adapter.execute(url, "SELECT id FROM orders ORDER BY id", row_limit=10, timeout_s=5.0, max_bytes=10**6)
    assert res.truncated and res.row_count == 2000
    with readonly_connection(adapter, url, 5.0) as (conn, _):
        assert conn.info["wenshu_query_id"].startswith("wenshu-")
        adapter.cancel(engine_for(adapter, url), conn)  # KILL QUERY from a second connection: no error
    assert clickhouse_db.checksums() == before


def test_the_demo_database_loads(demo_db_file, url):
    tables = sqlite_tables(demo_db_file)
    demo = load_tables(chdb_url("demo"), tables)
    for name, (_, rows) in tables.items():
        assert run(demo, f"SELECT count() FROM {name}").rows == [[len(rows)]], name
    with sqlite3.connect(demo_db_file) as conn:
        expected = conn.execute("SELECT substr(order_date, 1, 7), ROUND(SUM(pay_amount), 2) FROM orders "
                                "GROUP BY 1 ORDER BY 1").fetchall()
    month = ClickHouseAdapter().bucket("month", "order_date")
    got = run(demo, f"SELECT {month} AS m, ROUND(SUM(pay_amount), 2) FROM orders GROUP BY m ORDER BY m",
              row_limit=1000).rows
    assert [(m, pytest.approx(v)) for m, v in expected] == [tuple(r) for r in got]


def test_more_datasets_share_the_one_chdb_directory(url, tmp_path):
    demo = load_tables(chdb_url("more"), {"t": ([("k", "INTEGER"), ("v", "TEXT"), ("d", "DATE")],
                                                [(1, "a", "2024-01-02"), (2, None, None)])})
    assert run(demo, "SELECT k, v, d FROM t ORDER BY k").rows == [[1, "a", "2024-01-02"], [2, None, None]]
    assert run(url, "SELECT count() FROM canary").rows == [[3]]  # the shop database is untouched
    other = Path(tmp_path)
    with pytest.raises(DatasourceUnreachable, match="one data directory per process"):
        run(f"chdb://{other}?database=shop", "SELECT 1")
    assert chdb_root() != other
