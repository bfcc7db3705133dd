"""Catalog introspection on real SQLite files: structure, comments, keys (declared and inferred),
row counts and bounded sample values (binary and huge values included)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from wenshu.catalog import Catalog, TableInfo

from wenshu.knowledge.documents import column_doc
from wenshu.knowledge.introspect import load_catalog
from wenshu.knowledge.value_index import ValueIndex
from wenshu.knowledge.samples import SAMPLE_MAX_LEN

REGIONS = ["华东", "华北", "华南", "西南", "东北", "华中", "西北"]
SHOP_DDL = [
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, region TEXT, avatar BLOB)",
    "CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT)",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER, status TEXT, "
    "region_code TEXT, amount REAL)",
    "CREATE TABLE reviews (id INTEGER PRIMARY KEY, cust_id INTEGER, body TEXT)",
    "CREATE TABLE shipments (id INTEGER PRIMARY KEY, orderId INTEGER, warehouse_id INTEGER)",
    "CREATE TABLE coupons (id INTEGER PRIMARY KEY, customer_id INTEGER)",
    "CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id), method TEXT)",
    "CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 100",
    "CREATE TABLE _wenshu_tables (table_name TEXT PRIMARY KEY, comment TEXT)",
    "CREATE TABLE _wenshu_columns (table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT)",
]


def build_shop(path: Path) -> Path:
    """A small shop without declared keys (except payments.order_id), for inference and sync tests."""
    with sqlite3.connect(path) as conn:
        for ddl in SHOP_DDL:
            conn.execute(ddl)
        conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)",
                         [(i, f"客户{i}", REGIONS[i % 7], b"\x89PNG\x00\x01") for i in range(1, 201)])
        conn.executemany("INSERT INTO products VALUES (?, ?)", [(i, f"商品{i}") for i in range(1, 31)])
        conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
                         [(i, 1 + i % 200, 1 + i % 30, ("paid", "shipped")[i % 2], f"R{i % 3}", i * 1.5)
                          for i in range(1, 1001)])
        conn.executemany("INSERT INTO reviews VALUES (?, ?, ?)", [(i, 1 + i % 200, "好评") for i in range(1, 51)])
        conn.executemany("INSERT INTO shipments VALUES (?, ?, ?)", [(i, i, 7) for i in range(1, 301)])
        conn.executemany("INSERT INTO coupons VALUES (?, ?)", [(i, 5000 + i) for i in range(1, 101)])
        conn.executemany("INSERT INTO payments VALUES (?, ?, ?)", [(i, i, "微信") for i in range(1, 101)])
        conn.execute("INSERT INTO _wenshu_tables VALUES ('customers', '客户表')")
        conn.execute("INSERT INTO _wenshu_columns VALUES ('orders', 'status', '订单状态', ?)",
                     (json.dumps({"paid": "已支付", "shipped": "已发货"}),))
    return path


@pytest.fixture
def shop(tmp_path) -> Catalog:
    return load_catalog("shop", f"sqlite:///{build_shop(tmp_path / 'shop.db')}")


def fk_of(table: TableInfo, column: str):
    return next((f for f in table.foreign_keys if f.columns == [column]), None)


def test_structure_comments_views_and_declared_keys(shop):
    assert shop.table_names() == ["big_orders", "coupons", "customers", "orders", "payments", "products",
                                  "reviews", "shipments"]
    assert shop.table("big_orders").kind == "view" and shop.table("big_orders").row_count is None
    customers = shop.table("customers")
    assert customers.comment == "客户表" and customers.primary_key == ["id"]
    status = shop.table("orders").column("status")
    assert status.comment == "订单状态" and status.enum == {"paid": "已支付", "shipped": "已发货"}
    declared = fk_of(shop.table("payments"), "order_id")
    assert declared.ref_table == "orders" and not declared.inferred and declared.confidence == 1.0
    assert shop.table("payments").column("order_id").foreign_key == "orders.id"


def test_inferred_foreign_keys_by_name_confirmed_by_values(shop):
    orders = shop.table("orders")
    for column, parent, key in [("customer_id", "customers", "id"), ("product_id", "products", "product_id")]:
        fk = fk_of(orders, column)
        assert fk is not None and fk.inferred and (fk.ref_table, fk.ref_columns) == (parent, [key])
        assert 0.8 <= fk.confidence <= 1.0
        assert orders.column(column).foreign_key == f"{parent}.{key}" and orders.column(column).foreign_key_inferred
    assert fk_of(shop.table("reviews"), "cust_id").ref_table == "customers"  # abbreviation
    assert fk_of(shop.table("shipments"), "orderId").ref_table == "orders"  # camelCase
    weak = fk_of(shop.table("reviews"), "cust_id").confidence
    assert weak < fk_of(orders, "customer_id").confidence
    assert fk_of(shop.table("coupons"), "customer_id") is None  # no value overlap: rejected
    assert fk_of(shop.table("shipments"), "warehouse_id") is None  # no such parent table
    assert fk_of(orders, "region_code") is None
    assert fk_of(shop.table("payments"), "order_id").inferred is False  # declared wins


def test_row_counts_and_samples(shop):
    assert shop.table("orders").row_count == 1000 and shop.table("customers").row_count == 200
    region = shop.table("customers").column("region")
    assert region.low_cardinality and set(region.samples) == set(REGIONS)  # every value of a small set
    name = shop.table("customers").column("name")
    assert not name.low_cardinality and len(name.samples) == 2
    assert shop.table("customers").column("avatar").samples == []  # BLOB column skipped
    assert region.names == []  # a small set's values are its samples


def test_a_mid_cardinality_column_names_every_value_to_the_value_index_only(tmp_path):
    teams = [f"{a}{b}队" for a in "东南西北中春夏秋冬金" for b in "龙虎豹狮鹰狼熊鹿马牛"]  # 100 distinct names
    with sqlite3.connect(tmp_path / "league.db") as conn:
        conn.execute("CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany("INSERT INTO teams VALUES (?, ?)", list(enumerate(teams, 1)))
    league = load_catalog("league", f"sqlite:///{tmp_path / 'league.db'}")
    name = league.table("teams").column("name")
    assert not name.low_cardinality and len(name.samples) == 2 and sorted(name.names) == sorted(teams)
    rare = next(n for n in teams if n not in name.samples)
    hits = ValueIndex.from_catalog(league).match(f"{rare}赢了几场")
    assert [(h.table, h.column, h.value, h.score) for h in hits] == [("teams", "name", rare, 1.0)]
    assert rare not in column_doc(league.table("teams"), name).text  # recall documents show the samples only


def test_sqlite_statistics_are_used_for_big_tables_only(tmp_path):
    path = build_shop(tmp_path / "shop.db")
    with sqlite3.connect(path) as conn:
        conn.execute("ANALYZE")
        conn.execute("UPDATE sqlite_stat1 SET stat = '5000000' WHERE tbl = 'orders' AND idx IS NULL")
        conn.execute("INSERT INTO sqlite_stat1 (tbl, idx, stat) SELECT 'orders', NULL, '5000000' "
                     "WHERE NOT EXISTS (SELECT 1 FROM sqlite_stat1 WHERE tbl = 'orders')")
        conn.execute("UPDATE sqlite_stat1 SET stat = '3' WHERE tbl = 'customers'")  # small and stale
    catalog = load_catalog("shop", f"sqlite:///{path}")
    assert catalog.table("orders").row_count == 5_000_000  # trusted statistics, no COUNT(*)
    assert catalog.table("customers").row_count == 200  # small estimate: counted exactly


def test_binary_huge_and_invalid_text_values_are_skipped_or_cut(tmp_path):
    path = tmp_path / "odd.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, kind VARCHAR(10), raw BLOB)")
        rows = [(1, "长" * 1_000_000, "a", b"\x00" * 1000), (2, "x" * 300_000, "a", b"\xff")]
        rows += [(3, b"\x00\xff\xfe binary in a text column", "b", None), (4, "bad\x00nul", "b", None)]
        conn.executemany("INSERT INTO notes VALUES (?, ?, ?, ?)", rows)
        conn.execute("INSERT INTO notes VALUES (5, CAST(x'fffe41' AS TEXT), CAST(x'c328' AS TEXT), NULL)")
        conn.execute("INSERT INTO notes VALUES (6, 'ok', 'c', NULL)")
    notes = load_catalog("odd", f"sqlite:///{path}").table("notes")
    body = notes.column("body").samples
    assert body and all(len(v) <= SAMPLE_MAX_LEN for v in body)
    assert "长" * SAMPLE_MAX_LEN in body and "ok" in body
    assert all("\x00" not in v and "binary" not in v for v in body)
    assert all(v.encode("utf-8") for v in body)  # only valid text survives
    assert set(notes.column("kind").samples) == {"a", "b", "c"}
    assert notes.column("raw").samples == []
    assert notes.row_count == 6


def test_table_info_json_round_trip(shop):
    for table in shop.tables:
        assert TableInfo.from_dict(json.loads(json.dumps(table.to_dict()))) == table
    assert TableInfo.from_dict({"name": "t", "from_the_future": 1, "columns": [{"name": "a", "type": "INT",
                                                                                "x": 2}]}).columns[0].name == "a"


def test_more_naming_styles_and_loose_types(tmp_path):
    path = tmp_path / "names.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT)")
        conn.execute("CREATE TABLE makers (id INTEGER PRIMARY KEY, country TEXT)")
        conn.execute("CREATE TABLE cities (id INTEGER PRIMARY KEY, country_code TEXT)")
        conn.execute("CREATE TABLE ship (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("CREATE TABLE death (id INTEGER PRIMARY KEY, caused_by_ship_id INTEGER)")
        conn.execute("CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("CREATE TABLE concert (id INTEGER PRIMARY KEY, stadium_id TEXT)")  # loosely typed
        conn.executemany("INSERT INTO countries VALUES (?, ?)", [("CN", "中国"), ("US", "美国"), ("FR", "法国")])
        conn.executemany("INSERT INTO makers VALUES (?, ?)", [(1, "CN"), (2, "US"), (3, "CN")])
        conn.executemany("INSERT INTO cities VALUES (?, ?)", [(1, "FR"), (2, "CN")])
        conn.executemany("INSERT INTO ship VALUES (?, ?)", [(i, f"s{i}") for i in range(1, 6)])
        conn.executemany("INSERT INTO death VALUES (?, ?)", [(i, 1 + i % 5) for i in range(1, 9)])
        conn.executemany("INSERT INTO stadium VALUES (?, ?)", [(i, f"st{i}") for i in range(1, 4)])
        conn.executemany("INSERT INTO concert VALUES (?, ?)", [(i, str(1 + i % 3)) for i in range(1, 7)])
    catalog = load_catalog("names", f"sqlite:///{path}")
    expect = {("makers", "country"): "countries.code", ("cities", "country_code"): "countries.code",
              ("death", "caused_by_ship_id"): "ship.id", ("concert", "stadium_id"): "stadium.stadium_id"}
    for (table, column), target in expect.items():
        col = catalog.table(table).column(column)
        assert (col.foreign_key, col.foreign_key_inferred) == (target, True), (table, column)
