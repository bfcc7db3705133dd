"""The generated demo database: determinism, calendar coverage, consistency, annotations."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from contextlib import closing
from datetime import date, timedelta

import pytest
import sqlalchemy as sa

from wenshu.demo import generate, rows
from wenshu.demo.generate import build_demo_db, ensure_demo_db, read_build_info
from wenshu.demo.schema import table_names
from wenshu.demo.seasonality import window_start
from wenshu.knowledge.introspect import read_catalog

END = date(2024, 6, 15)
SMALL = 6_000
BUSINESS_TABLES = {
    "regions", "cities", "customers", "categories", "products",
    "orders", "order_items", "refunds", "daily_traffic",
}
HAN = re.compile(r"[\u4e00-\u9fff]")


def _connect(path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def _checksums(path) -> dict[str, str]:
    with closing(_connect(path)) as conn:
        tables = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        names = [r[0] for r in conn.execute(tables)]
        out = {}
        for name in names:
            h = hashlib.sha256()
            for row in conn.execute(f"SELECT * FROM {name} ORDER BY 1, 2"):
                h.update(repr(row).encode())
            out[name] = h.hexdigest()
    return out


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    return build_demo_db(tmp_path_factory.mktemp("small") / "demo.sqlite", end_date=END, n_orders=SMALL)


@pytest.fixture(scope="module")
def full_db(tmp_path_factory):
    """The default-size database, built the way the app builds it."""
    return ensure_demo_db(tmp_path_factory.mktemp("full"))


@pytest.fixture()
def db(small_db):
    conn = _connect(small_db)
    yield conn
    conn.close()


def test_deterministic(tmp_path, small_db):
    again = build_demo_db(tmp_path / "a.sqlite", end_date=END, n_orders=SMALL)
    assert _checksums(again) == _checksums(small_db)
    assert again.read_bytes() == small_db.read_bytes()
    other = build_demo_db(tmp_path / "b.sqlite", end_date=END, n_orders=SMALL, seed=7)
    assert _checksums(other)["orders"] != _checksums(small_db)["orders"]


def test_business_tables_and_build_info(db, small_db):
    assert set(table_names()) == BUSINESS_TABLES
    info = read_build_info(small_db)
    assert info == {
        "end_date": END.isoformat(),
        "seed": str(generate.DEFAULT_SEED),
        "n_orders": str(SMALL),
        "generator_version": generate.GENERATOR_VERSION,
    }
    assert db.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == SMALL
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []


def test_date_span(db):
    first, last, days = db.execute(
        "SELECT MIN(order_date), MAX(order_date), COUNT(DISTINCT order_date) FROM orders"
    ).fetchone()
    start = window_start(END)
    assert first == start.isoformat() and last == END.isoformat()
    assert (END.year - start.year) * 12 + END.month - start.month >= 24
    assert days == (END - start).days + 1  # every single day has orders
    on_end = "SELECT COUNT(*) FROM orders WHERE order_date = ?"
    assert db.execute(on_end, (END.isoformat(),)).fetchone()[0] > 0
    mismatched = "SELECT COUNT(*) FROM orders WHERE substr(order_time, 1, 10) != order_date"
    assert db.execute(mismatched).fetchone()[0] == 0
    assert db.execute("SELECT MAX(refund_date) FROM refunds").fetchone()[0] <= END.isoformat()
    assert db.execute("SELECT MAX(stat_date) FROM daily_traffic").fetchone()[0] == END.isoformat()
    late = (
        "SELECT COUNT(*) FROM orders o JOIN customers c USING (customer_id) "
        "WHERE c.register_date > o.order_date"
    )
    assert db.execute(late).fetchone()[0] == 0
    traffic_days = db.execute("SELECT COUNT(*), COUNT(DISTINCT stat_date) FROM daily_traffic").fetchone()
    assert traffic_days == (3 * days, days)


def test_status_and_enum_values(db):
    sql = "SELECT table_name, column_name, enum_json FROM _wenshu_columns WHERE enum_json IS NOT NULL"
    enums = {(t, c): json.loads(e) for t, c, e in db.execute(sql)}
    assert enums[("orders", "status")] == {"0": "待支付", "1": "已支付", "2": "已取消", "3": "已退款"}
    assert enums[("orders", "channel")] == {"app": "App", "web": "网页", "mini_program": "小程序"}
    for (table, column), enum in enums.items():
        values = {str(v) for (v,) in db.execute(f"SELECT DISTINCT {column} FROM {table}")}
        assert values == set(enum), (table, column)
    share = dict(db.execute(
        "SELECT status, COUNT(*) * 1.0 / (SELECT COUNT(*) FROM orders) FROM orders GROUP BY status"
    ))
    for status, expected in {1: 0.80, 0: 0.08, 2: 0.07, 3: 0.05}.items():
        assert abs(share[status] - expected) < 0.03
    unpaid = "SELECT COUNT(*) FROM orders WHERE status IN (0, 2) AND pay_amount != 0"
    paid = "SELECT COUNT(*) FROM orders WHERE status IN (1, 3) AND pay_amount <= 0"
    assert db.execute(unpaid).fetchone()[0] == 0
    assert db.execute(paid).fetchone()[0] == 0
    refunded = {r for (r,) in db.execute("SELECT order_id FROM orders WHERE status = 3")}
    assert refunded == {r for (r,) in db.execute("SELECT order_id FROM refunds")}


def test_amounts_consistent(db):
    mismatch = db.execute(
        "SELECT COUNT(*) FROM orders o JOIN (SELECT order_id, SUM(quantity * unit_price) AS s, COUNT(*) AS n "
        "FROM order_items GROUP BY order_id) i USING (order_id) "
        "WHERE ABS(o.total_amount - i.s) > 0.005 OR i.n NOT BETWEEN 1 AND 4"
    ).fetchone()[0]
    assert mismatch == 0
    assert db.execute("SELECT COUNT(DISTINCT order_id) FROM order_items").fetchone()[0] == SMALL
    assert db.execute("SELECT COUNT(*) FROM orders WHERE pay_amount > total_amount").fetchone()[0] == 0
    over = (
        "SELECT COUNT(*) FROM refunds r JOIN orders o USING (order_id) "
        "WHERE r.refund_amount > o.pay_amount OR r.refund_time < o.order_time"
    )
    assert db.execute(over).fetchone()[0] == 0


def test_every_table_and_column_has_chinese_comment(db):
    tables = dict(db.execute("SELECT table_name, comment FROM _wenshu_tables"))
    assert set(tables) == BUSINESS_TABLES
    assert all(HAN.search(c) for c in tables.values())
    sql = "SELECT table_name, column_name, comment FROM _wenshu_columns"
    comments = {(t, c): m for t, c, m in db.execute(sql)}
    for table in BUSINESS_TABLES:
        for (_, column, *_rest) in db.execute(f"PRAGMA table_info({table})"):
            assert HAN.search(comments.get((table, column)) or ""), (table, column)


def test_introspect_sees_business_tables(small_db):
    catalog = read_catalog(sa.create_engine(f"sqlite:///{small_db}"), "demo")
    assert set(catalog.table_names()) == BUSINESS_TABLES
    orders = catalog.table("orders")
    assert orders.comment and orders.row_count == SMALL
    assert orders.column("status").enum["3"] == "已退款"
    assert orders.column("channel").enum["mini_program"] == "小程序"
    assert orders.column("order_id").primary_key
    assert orders.column("customer_id").foreign_key == "customers.customer_id"
    assert catalog.table("cities").column("city_tier").enum["1"] == "一线"
    assert "华东" in catalog.table("regions").column("region_name").samples
    assert all(c.comment for t in catalog.tables for c in t.columns)


LAST_MONTH_BY_CITY = """
    SELECT c.city_name, COUNT(*) AS orders, ROUND(SUM(o.pay_amount), 2) AS gmv
    FROM orders o JOIN cities c ON c.city_id = o.city_id
    WHERE o.status = 1
      AND o.order_date >= date(:today, 'start of month', '-1 month')
      AND o.order_date < date(:today, 'start of month')
    GROUP BY c.city_name ORDER BY orders DESC
"""
LAST_WEEK_BY_CHANNEL = """
    SELECT o.channel, COUNT(*) FROM orders o
    WHERE o.order_date BETWEEN date(:today, '-7 days') AND date(:today, '-1 day')
    GROUP BY o.channel
"""
REGION_SALES = """
    SELECT r.region_name, SUM(o.pay_amount) AS gmv FROM orders o
    JOIN cities c ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id
    WHERE o.status = 1 GROUP BY r.region_name ORDER BY gmv DESC
"""


def test_plain_sql_questions(db):
    today = {"today": END.isoformat()}
    by_city = db.execute(LAST_MONTH_BY_CITY, today).fetchall()
    assert len(by_city) > 5 and all(n > 0 for _, n, _ in by_city)
    assert len(db.execute(LAST_WEEK_BY_CHANNEL, today).fetchall()) == 3
    assert db.execute(REGION_SALES).fetchone()[0] == "华东"


def test_default_size_is_realistic(full_db):
    info = read_build_info(full_db)
    assert info["end_date"] == date.today().isoformat()
    assert int(info["n_orders"]) >= 100_000
    with closing(_connect(full_db)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] >= 100_000
        today = {"today": date.today().isoformat()}
        assert conn.execute("SELECT COUNT(*) FROM orders WHERE order_date = :today", today).fetchone()[0] > 0
        assert len(conn.execute(LAST_MONTH_BY_CITY, today).fetchall()) >= 30
        assert conn.execute(REGION_SALES).fetchone()[0] == "华东"
        # November (双11) is the busiest month of the last full year; 11-11 the busiest day.
        by_month = conn.execute(
            "SELECT substr(order_date, 6, 2), COUNT(*) FROM orders "
            "WHERE order_date >= date(:today, '-365 days', 'start of month') "
            "AND order_date < date(:today, 'start of month') GROUP BY 1 ORDER BY 2 DESC",
            today,
        ).fetchall()
        assert by_month[0][0] == "11"
        assert conn.execute(
            "SELECT substr(order_date, 6, 5) FROM orders GROUP BY order_date ORDER BY COUNT(*) DESC LIMIT 1"
        ).fetchone()[0] == "11-11"
        # Growth: the last 12 months outsell the 12 before them.
        yoy = conn.execute(
            "SELECT SUM(order_date > date(:today, '-365 days')), SUM(order_date <= date(:today, '-365 days') "
            "AND order_date > date(:today, '-730 days')) FROM orders", today).fetchone()
        assert yoy[0] > yoy[1] * 1.2


def test_ensure_reuses_fresh_and_rebuilds_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(generate, "DEFAULT_N_ORDERS", 3_000)
    path = build_demo_db(tmp_path / "demo.sqlite", end_date=date.today() - timedelta(days=1), n_orders=3_000)
    stat = path.stat()
    assert ensure_demo_db(tmp_path) == path
    assert read_build_info(path)["end_date"] == date.today().isoformat()
    assert path.stat().st_ino != stat.st_ino  # replaced by rename
    fresh = path.stat()
    ensure_demo_db(tmp_path)
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (fresh.st_ino, fresh.st_mtime_ns)
    assert [p.name for p in tmp_path.iterdir()] == ["demo.sqlite"]


def test_failed_build_leaves_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "demo.sqlite"
    path.write_bytes(b"previous")

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(rows, "gen_traffic", boom)
    with pytest.raises(RuntimeError):
        build_demo_db(path, end_date=END, n_orders=1_000)
    assert path.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["demo.sqlite"]
    with pytest.raises(ValueError):
        build_demo_db(tmp_path / "tiny.sqlite", end_date=END, n_orders=10)  # fewer orders than days
    assert not (tmp_path / "tiny.sqlite").exists()


def test_progress_reports_every_stage(tmp_path):
    seen: list[tuple[str, int, int]] = []
    build_demo_db(tmp_path / "p.sqlite", end_date=END, n_orders=2_000,
                  progress=lambda *a: seen.append(a))
    assert seen[0] == ("reference", 0, 1)
    assert {s for s, _, _ in seen} == {"reference", "customers", "orders", "traffic", "finish"}
    assert ("orders", 2_000, 2_000) in seen and seen[-1] == ("finish", 1, 1)
