"""Catalog sync into the app store on real SQLite files: incremental re-sync, full re-sync, the agent's
view of it, the daily re-sync, and bad input (a datasource vanishing mid-sync, 2,000 columns, no tables)."""

from __future__ import annotations

import sqlite3
import time

import pytest
from test_catalog_introspect import build_shop

from wenshu.agent.context import CatalogSource
from wenshu.bootstrap import ensure_demo
from wenshu.engines.execute import data_version
from wenshu.errors import DatasourceUnreachable, EmptyDatasource, UnknownDatasource
from wenshu.knowledge.sync import current_catalog, resync_all, sync_datasource


@pytest.fixture
def shop(store, tmp_path):
    path = build_shop(tmp_path / "shop.db")
    store.datasources.add("shop", str(path))
    return path


def sql(path, *statements):
    with sqlite3.connect(path) as conn:
        for s in statements:
            conn.execute(s)


def test_resync_only_rereads_changed_tables(store, shop):
    first = sync_datasource(store, "shop")
    assert len(first.added) == first.tables == 8 and first.to_dict()["added"] == 8
    again = sync_datasource(store, "shop")
    assert (again.added, again.changed, again.removed, len(again.unchanged)) == ([], [], [], 8)

    sql(shop, "ALTER TABLE orders ADD COLUMN note TEXT", "DROP TABLE coupons",
        "CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id INTEGER, reason TEXT)",
        "INSERT INTO refunds VALUES (1, 3, '不想要了')",
        "UPDATE products SET title = '新品'", "INSERT INTO products VALUES (31, '新品')")
    report = sync_datasource(store, "shop")
    assert (report.added, report.changed, report.removed) == (["refunds"], ["orders"], ["coupons"])
    catalog = store.catalogs.load("shop")
    assert catalog.table("orders").column("note") is not None
    refund_fk = catalog.table("refunds").foreign_keys[0]
    assert (refund_fk.ref_table, refund_fk.inferred) == ("orders", True)
    products = catalog.table("products")
    assert products.row_count == 31  # row counts refresh on every sync ...
    assert "新品" not in products.column("title").samples  # ... samples only when the structure changed

    full = sync_datasource(store, "shop", full=True)
    assert len(full.changed) == 8 and not full.unchanged
    assert store.catalogs.load("shop").table("products").column("title").samples == ["新品"]


def test_datasource_vanishing_mid_sync_keeps_the_previous_snapshot(store, shop):
    sync_datasource(store, "shop")
    before, status = store.catalogs.load("shop"), store.catalogs.status("shop")
    seen = []

    def vanish(stage, done, total):
        seen.append(done)
        if done == 2:
            shop.write_bytes(b"")  # the file is emptied while the sync is between tables

    with pytest.raises(DatasourceUnreachable) as err:
        sync_datasource(store, "shop", progress=vanish, full=True)
    assert err.value.code == "datasource_unreachable" and "shop" in err.value.en
    assert seen == [1, 2]
    assert store.catalogs.load("shop") == before and store.catalogs.status("shop") == status

    shop.unlink()
    with pytest.raises(DatasourceUnreachable, match="does not exist"):
        sync_datasource(store, "shop")
    assert store.catalogs.load("shop") == before


def test_a_table_with_2000_columns_syncs_in_bounded_time(store, tmp_path):
    path = tmp_path / "wide.db"
    cols = [f"c{i} {'TEXT' if i % 2 else 'INTEGER'}" for i in range(1999)]
    sql(path, f"CREATE TABLE wide (id INTEGER PRIMARY KEY, {', '.join(cols)})")
    with sqlite3.connect(path) as conn:
        rows = [[i, *(i if n % 2 == 0 else f"v{i % 5}-{n}" for n in range(1999))] for i in range(100)]
        conn.executemany(f"INSERT INTO wide VALUES ({', '.join('?' * 2000)})", rows)
    store.datasources.add("wide", str(path))
    t0 = time.perf_counter()
    report = sync_datasource(store, "wide")
    assert time.perf_counter() - t0 < 30
    wide = store.catalogs.load("wide").table("wide")
    assert len(wide.columns) == 2000 and wide.row_count == 100
    assert wide.column("c1").samples  # sampled until the time budget ran out, at least the first ones
    t0 = time.perf_counter()
    assert sync_datasource(store, "wide").unchanged == ["wide"] and report.tables == 1
    assert time.perf_counter() - t0 < 10  # an unchanged wide table is not re-sampled


def test_zero_tables_and_unknown_names(store, tmp_path):
    empty = tmp_path / "empty.db"
    sql(empty, "CREATE TABLE _wenshu_tables (table_name TEXT PRIMARY KEY, comment TEXT)")
    store.datasources.add("empty", str(empty))
    with pytest.raises(EmptyDatasource) as err:
        sync_datasource(store, "empty")
    assert err.value.code == "datasource_empty" and "no tables" in err.value.en and "没有" in err.value.zh
    assert store.catalogs.status("empty") is None
    with pytest.raises(UnknownDatasource) as unknown:
        sync_datasource(store, "nope")
    assert unknown.value.code == "unknown_datasource" and "empty" in unknown.value.en


def test_current_catalog_follows_the_sqlite_file(store, shop):
    url = store.datasources.get("shop").url
    catalog = current_catalog(store, "shop")  # first use syncs
    synced_at = store.catalogs.status("shop").synced_at
    assert "orders" in catalog.table_names()
    assert current_catalog(store, "shop").table_names() == catalog.table_names()
    assert store.catalogs.status("shop").synced_at == synced_at  # current: read, not re-synced

    def no_live_reads(name, url):
        raise AssertionError("the synced snapshot should be used")

    source = CatalogSource(no_live_reads, store=store)
    assert source.get("shop", url, data_version(url)).table("orders") is not None
    time.sleep(0.01)
    sql(shop, "CREATE TABLE vouchers (id INTEGER PRIMARY KEY, code TEXT)")
    assert "vouchers" in source.get("shop", url, data_version(url)).table_names()  # file changed: re-synced
    assert store.catalogs.status("shop").synced_at > synced_at


def test_demo_is_synced_once_at_startup(settings, store):
    status = store.catalogs.status("demo")
    assert status is not None and status.table_count >= 9
    ensure_demo(settings, store)
    assert store.catalogs.status("demo").synced_at == status.synced_at


def test_resync_all_syncs_stale_datasources_and_reports_failures(store, shop, tmp_path):
    gone = build_shop(tmp_path / "gone.db")
    store.datasources.add("gone", str(gone))
    gone.unlink()
    results = resync_all(store)
    assert set(results) == {"shop", "gone"}  # the demo was synced at startup: fresh
    assert results["shop"]["added"] == 8
    assert results["gone"]["error"]["code"] == "datasource_unreachable"
    again = resync_all(store, max_age_s=0)
    assert again["demo"]["unchanged"] >= 9 and again["shop"]["unchanged"] == 8
