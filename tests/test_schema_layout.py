"""The prompt's schema layout (setting `schema_layout`): sample rows read from a real SQLite file, the
"ddl" layout (`CREATE TABLE` with key lines and a few rows) and recall choosing whole or partial blocks
by the layout's own size."""

from __future__ import annotations

import pytest
from test_catalog_introspect import build_shop

from wenshu.catalog import Catalog, TableInfo
from wenshu.knowledge.hybrid import HybridRecall
from wenshu.knowledge.introspect import load_catalog
from wenshu.knowledge.samples import ROW_VALUE_LEN, SAMPLE_ROWS
from wenshu.knowledge.schema_block import compact_schema, ddl_table, estimate_tokens, render_table
from wenshu.knowledge.sync import sync_datasource


@pytest.fixture
def shop(tmp_path) -> Catalog:
    return load_catalog("shop", f"sqlite:///{build_shop(tmp_path / 'shop.db')}")


def test_sample_rows_are_short_text_with_binary_columns_as_null(shop):
    customers = shop.table("customers")
    assert len(customers.sample_rows) == SAMPLE_ROWS
    first = customers.sample_rows[0]
    assert len(first) == len(customers.columns)
    assert first[:3] == ["1", "客户1", "华北"] and first[3] is None  # avatar is a BLOB
    assert shop.table("big_orders").sample_rows == []  # views are not sampled
    assert TableInfo.from_dict(customers.to_dict()).sample_rows == customers.sample_rows


def test_long_values_are_cut(tmp_path):
    import sqlite3

    path = tmp_path / "long.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes VALUES (1, ?)", ("长" * 500,))
        conn.execute("INSERT INTO notes VALUES (2, NULL)")
    rows = load_catalog("long", f"sqlite:///{path}").table("notes").sample_rows
    assert rows == [["1", "长" * ROW_VALUE_LEN], ["2", None]]


def test_ddl_layout_shows_keys_rows_and_no_duplicate_examples(shop):
    text = ddl_table(shop.table("payments"))
    assert text.startswith("CREATE TABLE payments (")
    assert "id INTEGER PRIMARY KEY" in text and "FOREIGN KEY (order_id) REFERENCES orders(id)" in text
    assert "SELECT * FROM payments LIMIT 3;" in text and "id\torder_id\tmethod" in text
    assert "1\t1\t微信" in text
    assert "e.g." not in text  # the rows show the values; the column notes do not repeat them
    customers = ddl_table(shop.table("customers"))
    assert "1\t客户1\t华北\tNULL" in customers and "-- 客户表" in customers


def test_ddl_layout_of_some_columns_counts_the_rest_and_keeps_rows_aligned(shop):
    text = ddl_table(shop.table("orders"), ["id", "amount"])
    assert "-- ... 4 more columns" in text and "status" not in text
    assert "id\tamount" in text and "1\t1.5" in text


def test_a_table_without_rows_keeps_its_example_values(shop):
    table = shop.table("orders")
    table.sample_rows = []
    text = render_table(table, None, "ddl")
    assert "example rows" not in text and "codes: paid=已支付" in text


def test_recall_renders_the_layout_and_decides_wholeness_by_its_size(shop):
    compact = compact_schema(shop)
    ddl = "\n".join(render_table(t, None, "ddl") for t in shop.tables)
    between = (estimate_tokens(compact) + estimate_tokens(ddl)) // 2
    assert estimate_tokens(compact) < between < estimate_tokens(ddl)
    small = HybridRecall(budget=between, k_examples=0)
    got = small.recall("每个地区的客户数", shop)
    assert got.whole and got.schema_block.startswith("TABLE big_orders")
    wide = HybridRecall(budget=between, k_examples=0, layout="ddl")
    got = wide.recall("每个地区的客户数", shop)
    assert not got.whole and "CREATE TABLE customers" in got.schema_block
    assert "example rows" in got.schema_block
    roomy = HybridRecall(budget=10 * between, k_examples=0, layout="ddl")
    assert roomy.recall("每个地区的客户数", shop).whole


def test_sync_stores_the_rows(store, tmp_path):
    store.datasources.add("shop", str(build_shop(tmp_path / "shop.db")))
    sync_datasource(store, "shop")
    assert store.catalogs.load("shop").table("products").sample_rows[0] == ["1", "商品1"]
