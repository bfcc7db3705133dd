"""The catalog repository of the app store (real SQLite app DB): snapshots, hashes, status, cascade."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from wenshu.catalog import Catalog, ColumnInfo, ForeignKeyInfo, TableInfo, structural_hash
from wenshu.errors import UnknownDatasource
from wenshu.storage.db import open_store


@pytest.fixture
def app(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    store.datasources.add("shop", f"sqlite:///{tmp_path / 'shop.db'}")
    yield store
    store.close()


def table(name: str, *cols: str, rows: int | None = 10) -> TableInfo:
    columns = [ColumnInfo(c, "INTEGER" if c.endswith("id") else "TEXT", primary_key=c == "id") for c in cols]
    return TableInfo(name=name, columns=columns, row_count=rows)


def snapshot(*tables: TableInfo) -> tuple[Catalog, dict[str, str]]:
    return Catalog("shop", "sqlite", list(tables)), {t.name: structural_hash(t) for t in tables}


def test_save_load_round_trip_and_status(app):
    orders = table("orders", "id", "customer_id", "status")
    orders.columns[2].samples, orders.columns[2].low_cardinality = ["已支付", "已取消"], True
    orders.foreign_keys = [ForeignKeyInfo(["customer_id"], "customers", ["id"], inferred=True, confidence=0.9)]
    catalog, hashes = snapshot(table("customers", "id", "name", rows=3), orders)
    assert app.catalogs.load("shop") is None and app.catalogs.status("shop") is None
    diff = app.catalogs.save(catalog, hashes, data_version="v1", seconds=0.25)
    assert diff == {"added": ["customers", "orders"], "changed": [], "removed": [], "unchanged": []}
    assert app.catalogs.load("shop") == catalog
    status = app.catalogs.status("shop")
    assert (status.table_count, status.data_version, status.seconds) == (2, "v1", 0.25)
    assert status.synced_at.tzinfo is not None and set(app.catalogs.statuses()) == {"shop"}
    assert app.catalogs.table_hashes("shop") == hashes


def test_resave_rewrites_only_changed_tables_and_refreshes_row_counts(app):
    catalog, hashes = snapshot(table("a", "id"), table("b", "id"), table("c", "id"))
    app.catalogs.save(catalog, hashes)
    first = app.catalogs.status("shop").schema_hash
    a, b2, d = table("a", "id", rows=99), table("b", "id", "extra"), table("d", "id")
    catalog, hashes = snapshot(a, b2, d)
    diff = app.catalogs.save(catalog, hashes)
    assert diff == {"added": ["d"], "changed": ["b"], "removed": ["c"], "unchanged": ["a"]}
    loaded = app.catalogs.load("shop")
    assert loaded.table_names() == ["a", "b", "d"] and loaded.table("a").row_count == 99
    assert loaded.table("b").column("extra") is not None
    assert app.catalogs.status("shop").schema_hash != first


def test_failed_save_leaves_the_previous_snapshot(app):
    catalog, hashes = snapshot(table("a", "id"))
    app.catalogs.save(catalog, hashes)
    bad, bad_hashes = snapshot(table("a", "id", "x"), table("b", "id"))
    del bad_hashes["b"]  # an inconsistent snapshot fails halfway through the write
    with pytest.raises(KeyError):
        app.catalogs.save(bad, bad_hashes)
    assert app.catalogs.load("shop") == catalog


def test_unknown_datasource_and_cascade_on_remove(app):
    other = Catalog("nope", "sqlite", [table("a", "id")])
    with pytest.raises(UnknownDatasource):
        app.catalogs.save(other, {"a": "h"})
    catalog, hashes = snapshot(table("a", "id"))
    app.catalogs.save(catalog, hashes)
    app.datasources.remove("shop")
    with app.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT COUNT(*) FROM catalog_tables")).scalar() == 0
    assert app.catalogs.status("shop") is None
