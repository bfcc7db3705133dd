"""Spark SQL through Wenshu's engine adapter, against a real local Spark (pyspark, `local[2]`).

One JVM for the whole test session (`fixtures_spark.spark_db`). The adapter is registered in-process
until its `wenshu.engines` entry point is declared.
"""

from __future__ import annotations

import os
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine_data import shop_tables
from fixtures_spark import load_tables
from wenshu.engines.spark import SparkAdapter, plan_rows, plan_work
from wenshu.errors import SQLExecutionError, SQLTimeout, WenshuError

ADAPTER = SparkAdapter()
LONG = "SELECT sum(id % 7) FROM range(0, 1000000000000)"  # minutes of work, stopped at Spark's kill checks


def execute(url: str, sql: str, **kw):
    from wenshu.engines.execute import execute_readonly

    return execute_readonly(url, sql, **kw)


def test_rows_are_typed_and_counted_past_the_row_limit(spark_db):
    result = execute(spark_db.url, "SELECT o.id, o.amount, o.status, o.created_at, c.name, c.region FROM orders o "
                     "JOIN customers c ON c.id = o.customer_id ORDER BY o.id", row_limit=3, timeout_s=60)
    assert result.columns == ["id", "amount", "status", "created_at", "name", "region"]
    assert result.rows[0] == [1, 47.5, "shipped", "2024-02-02", "客户2", "华南"]
    assert [type(v) for v in result.rows[0]] == [int, float, str, str, str, str]
    assert len(result.rows) == 3 and result.truncated and result.row_count == 2000


def test_a_long_query_stops_near_its_time_limit(spark_db):
    started = time.monotonic()
    with pytest.raises(SQLTimeout):
        execute(spark_db.url, LONG, timeout_s=1.5)
    assert time.monotonic() - started < 6
    assert execute(spark_db.url, "SELECT count(*) FROM canary").rows == [[3]]  # the session still serves


def test_endless_nested_loops_are_refused_before_they_start(spark_db):
    """Spark cannot stop a running nested loop (a cancelled one keeps its task slot until it ends; two
    would wedge local[2]), so one that cannot finish within the time limit never starts: it is refused
    in well under its limit (a started one would run until the limit cancelled it)."""
    cross = "SELECT COUNT(*) FROM orders a, orders b, orders c, orders d"  # 1.6e13 pairs
    for _ in range(3):
        started = time.monotonic()
        with pytest.raises(SQLTimeout):
            execute(spark_db.url, cross, timeout_s=8.0)
        assert time.monotonic() - started < 4.0
    assert execute(spark_db.url, "SELECT COUNT(*) FROM orders a, canary b", timeout_s=5).rows == [[6000]]
    assert execute(spark_db.url, "SELECT COUNT(*) FROM canary").rows == [[3]]


def test_plan_estimates(spark_db):
    cross = ADAPTER.estimate(spark_db.url, "SELECT * FROM orders a, orders b, orders c", 30)
    assert cross.rows > 1e8
    small = ADAPTER.estimate(spark_db.url, "SELECT * FROM orders WHERE id = 5", 30)
    assert small.rows < 1e5
    joined = ADAPTER.estimate(spark_db.url, "SELECT c.region, sum(o.amount) FROM orders o JOIN customers c "
                              "ON c.id = o.customer_id GROUP BY c.region", 30)
    assert joined.rows < 1e5
    with pytest.raises(WenshuError):
        ADAPTER.estimate(spark_db.url, "SELECT * FROM no_such_table", 30)


def test_plan_rows_reads_the_optimized_plan():
    plan = """== Optimized Logical Plan ==
Aggregate [count(1) AS count(1)#9L], Statistics(sizeInBytes=16.0 B, rowCount=1)
+- Join Inner, Statistics(sizeInBytes=1.2E+25 B)
   :- Filter (s#3 = a
b), Statistics(sizeInBytes=4.0 KiB)
   :  +- Relation db.t[a#1L,s#3] parquet, Statistics(sizeInBytes=4.0 KiB)
   +- Join Inner, (a#1L = b#2L), Statistics(sizeInBytes=2.0 MiB)
      :- Range (0, 1000, step=1), Statistics(sizeInBytes=7.8 KiB, rowCount=1.00E+3)
      +- LocalRelation [b#2L], Statistics(sizeInBytes=80.0 B, rowCount=10)

== Physical Plan ==
..."""
    assert plan_rows(plan) == pytest.approx(4096 / 8 * 1010)  # (512 rows) x (1,000 + 10 rows)
    assert plan_work(plan)[1] == pytest.approx(4096 / 8 * 1010)  # ... all in one nested loop
    with pytest.raises(ValueError):
        plan_rows("Error occurred during query planning: nope")


def test_catalog_introspection(spark_db):
    from wenshu.knowledge.introspect import read_catalog

    engine = sa.create_engine(spark_db.url)
    try:
        catalog = read_catalog(engine, "sp")
    finally:
        engine.dispose()
    assert catalog.dialect == "spark"
    tables = {t.name: t for t in catalog.tables}
    assert set(tables) == {"canary", "customers", "orders"}
    orders = {c.name: c.type for c in tables["orders"].columns}
    assert orders == {"id": "BIGINT", "customer_id": "BIGINT", "amount": "DECIMAL(10, 2)", "status": "STRING",
                      "created_at": "DATE"}
    assert tables["orders"].row_count == 2000
    region = next(c for c in tables["customers"].columns if c.name == "region")
    assert sorted(region.samples) == sorted(["华东", "华北", "华南", "西南"]) and region.low_cardinality


def test_period_buckets(spark_db):
    days = [date(2020, 12, 31), date(2021, 1, 3), date(2021, 1, 4), date(2024, 12, 30), date(2026, 11, 2),
            date(2027, 1, 1)]
    grains = ["day", "week", "month", "quarter", "year"]
    values = ", ".join(f"({ADAPTER.date_literal(d)})" for d in days)
    labels = ", ".join(ADAPTER.bucket(g, "d") for g in grains)
    got = execute(spark_db.url, f"SELECT {labels} FROM VALUES {values} AS t(d) ORDER BY d").rows

    def expected(d: date) -> list[str]:
        return [d.isoformat(), (d - timedelta(days=d.weekday())).isoformat(), d.strftime("%Y-%m"),
                f"{d.year}-Q{(d.month - 1) // 3 + 1}", str(d.year)]

    assert got == [expected(d) for d in days]
    assert got[4] == ["2026-11-02", "2026-11-02", "2026-11", "2026-Q4", "2026"]
    stamp = execute(spark_db.url, f"SELECT {ADAPTER.bucket('week', 'TIMESTAMP ' + repr(str(days[1]) + ' 23:59:00'))}")
    assert stamp.rows == [["2020-12-28"]]  # a week is named by its Monday, across the new year


def test_bounded_scalar_and_row_estimate(spark_db):
    engine = sa.create_engine(spark_db.url)
    try:
        with engine.connect() as conn:
            count = sa.select(sa.func.count()).select_from(sa.table("orders"))
            assert ADAPTER.bounded_scalar(conn, count, 30) == 2000
            started = time.monotonic()
            assert ADAPTER.bounded_scalar(conn, sa.text(LONG), 1.0) is None
            assert time.monotonic() - started < 5
            assert ADAPTER.row_estimate(conn, "orders") == 2000  # analyzed when the warehouse was registered
    finally:
        engine.dispose()


def test_spark_itself_does_not_refuse_a_write(spark_db, tmp_path):
    """Spark has no read-only session: a write that gets past the guard runs. Wenshu reports it as a
    refusal only afterwards (it returned no rows); the row is in the table."""
    url = f"spark://{tmp_path / 'scratch'}"
    load_tables(url, {"canary": shop_tables()["canary"]})
    shop_before = spark_db.checksums()
    with pytest.raises(SQLExecutionError, match="returned no rows"):
        ADAPTER.execute(url, "INSERT INTO canary VALUES (9, 'x')", row_limit=10, timeout_s=60, max_bytes=1 << 20)
    assert execute(url, "SELECT id, token FROM canary WHERE id = 9").rows == [[9, "x"]]
    execute_sql = sa.create_engine(url)
    try:
        with execute_sql.connect() as conn:
            conn.exec_driver_sql("ANALYZE TABLE canary COMPUTE STATISTICS")  # a catalog write, also not refused
            assert ADAPTER.row_estimate(conn, "canary") == 4
    finally:
        execute_sql.dispose()
    assert spark_db.checksums() == shop_before  # another warehouse is another database


def test_sessions_are_hardened(spark_db, tmp_path):
    marker = tmp_path / "transform-ran"
    assert execute(spark_db.url, "SELECT '${env:HOME}' AS v").rows == [["${env:HOME}"]]  # no substitution
    with pytest.raises(SQLExecutionError):
        execute(spark_db.url, "SELECT * FROM text.`/etc/hostname`")  # SQL on files is off
    with pytest.raises(SQLExecutionError, match="TRANSFORM"):
        execute(spark_db.url, f"SELECT TRANSFORM(id) USING 'touch {marker}' AS (x) FROM canary")
    assert not marker.exists()
    engine = sa.create_engine(spark_db.url, pool_size=1, max_overflow=0)
    try:
        with engine.connect() as conn:  # what a statement past the guard could change ...
            database = conn.exec_driver_sql("SELECT current_database()").scalar()
            conn.exec_driver_sql("SET spark.sql.runSQLOnFiles = true")
            conn.exec_driver_sql("USE default")
        with engine.connect() as conn:  # ... is restored when the connection goes back to the pool
            assert conn.exec_driver_sql("SET spark.sql.runSQLOnFiles").fetchall()[0][1] == "false"
            assert conn.exec_driver_sql("SELECT current_database()").scalar() == database
    finally:
        engine.dispose()


def test_adapter_vocabulary():
    assert ADAPTER.read_only_session is False and ADAPTER.files_in_from
    assert {"reflect", "java_method", "try_reflect", "identifier"} <= ADAPTER.denied_functions
    assert ADAPTER.as_text("x") == "CAST(x AS STRING)" and ADAPTER.data_version("spark:///x") is None


def test_nothing_left_in_the_working_directory(spark_db):
    here = Path(os.getcwd())
    assert not any((here / name).exists() for name in ("spark-warehouse", "metastore_db", "derby.log"))


def test_week_formula_matches_python_over_years(spark_db):
    start = date(2015, 12, 20)
    days = [start + timedelta(days=n) for n in range(0, 12 * 366, 3)]
    sql = (f"SELECT d, {ADAPTER.bucket('week', 'd')} FROM VALUES "
           + ", ".join(f"({ADAPTER.date_literal(d)})" for d in days) + " AS t(d)")
    got = {d: w for d, w in execute(spark_db.url, sql, row_limit=5000).rows}
    assert all(got[d.isoformat()] == (d - timedelta(days=d.weekday())).isoformat() for d in days)


def test_spark_urls_and_types():
    from wenshu.engines.spark_session import _SCRIPT
    from wenshu.engines.spark_dialect import SparkDialect, spark_type

    dialect = SparkDialect()
    _, local = dialect.create_connect_args(sa.engine.make_url("spark:///data/wh?master=local[4]"))
    assert local == {"warehouse": "/data/wh", "master": "local[4]", "driver_memory": None}
    _, remote = dialect.create_connect_args(sa.engine.make_url("spark://me:tok@spark.lan/sales?use_ssl=true"))
    assert remote == {"remote": "sc://spark.lan:15002/;use_ssl=true;user_id=me;token=tok", "database": "sales"}
    assert [str(spark_type(t)) for t in ("bigint", "decimal(10,2)", "string", "date", "array<int>")] == [
        "BIGINT", "DECIMAL(10, 2)", "STRING", "DATE", "ARRAY<INT>"]
    query = sa.select(sa.cast(sa.column("x"), sa.Text)).select_from(sa.table("my table")).limit(3)
    assert " ".join(str(query.compile(dialect=dialect)).split()) == "SELECT CAST(x AS STRING) AS x FROM `my table` LIMIT :param_1"
    assert _SCRIPT.search("SELECT TRANSFORM(a) USING /* x */ 'sh' FROM t")  # the Spark Connect text check
    assert not _SCRIPT.search("SELECT * FROM a JOIN b USING (id)")
