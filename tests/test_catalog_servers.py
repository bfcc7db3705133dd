"""Catalog sync against real PostgreSQL and MariaDB servers (fixtures_servers): native comments,
declared and inferred foreign keys, row counts, samples, and a connection lost mid-sync."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from wenshu.errors import DatasourceUnreachable
from wenshu.knowledge.sync import sync_datasource

DB = "wenshu_catalog_t"
REGIONS = ["华东", "华北", "华南"]


def _ddl(engine: str) -> list[str]:
    if engine == "postgres":
        return [
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, region VARCHAR(20))",
            "COMMENT ON TABLE customers IS '客户'",
            "COMMENT ON COLUMN customers.region IS '大区'",
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), "
            "status VARCHAR(10))",
            "CREATE TABLE reviews (id INTEGER PRIMARY KEY, customer_id INTEGER, body TEXT)",
        ]
    return [
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, region VARCHAR(20) COMMENT '大区') COMMENT='客户'",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, status VARCHAR(10), "
        "FOREIGN KEY (customer_id) REFERENCES customers(id)) ENGINE=InnoDB",
        "CREATE TABLE reviews (id INTEGER PRIMARY KEY, customer_id INTEGER, body TEXT)",
    ]


def _make_db(server, store) -> str:
    admin = sa.create_engine(server.admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {DB}")
        charset = " CHARACTER SET utf8mb4" if server.engine == "mysql" else ""
        conn.exec_driver_sql(f"CREATE DATABASE {DB}{charset}")
    admin.dispose()
    url = sa.engine.make_url(server.url).set(database=DB).render_as_string(hide_password=False)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        for ddl in _ddl(server.engine):
            conn.exec_driver_sql(ddl)
        conn.execute(sa.text("INSERT INTO customers VALUES (:i, :r)"),
                     [{"i": i, "r": REGIONS[i % 3]} for i in range(1, 101)])
        conn.execute(sa.text("INSERT INTO orders VALUES (:i, :c, 'paid')"), [{"i": i, "c": 1 + i % 100}
                                                                            for i in range(1, 301)])
        conn.execute(sa.text("INSERT INTO reviews VALUES (:i, :c, 'ok')"), [{"i": i, "c": 1 + i % 100}
                                                                           for i in range(1, 41)])
    engine.dispose()
    store.datasources.add(server.engine, url)
    return url


def _check(store, name: str) -> None:
    report = sync_datasource(store, name)
    assert report.added == ["customers", "orders", "reviews"]
    catalog = store.catalogs.load(name)
    customers, orders, reviews = (catalog.table(t) for t in ("customers", "orders", "reviews"))
    assert customers.comment == "客户" and customers.column("region").comment == "大区"
    assert customers.column("region").low_cardinality and set(customers.column("region").samples) == set(REGIONS)
    assert (customers.row_count, orders.row_count, reviews.row_count) == (100, 300, 40)
    declared = orders.foreign_keys[0]
    assert (declared.ref_table, declared.inferred) == ("customers", False)
    inferred = reviews.foreign_keys[0]
    assert (inferred.columns, inferred.ref_table, inferred.ref_columns, inferred.inferred) == (
        ["customer_id"], "customers", ["id"], True)
    assert sync_datasource(store, name).unchanged == ["customers", "orders", "reviews"]


def test_postgres_catalog(pg_server, store):
    _make_db(pg_server, store)
    _check(store, "postgres")


def test_mariadb_catalog(mariadb_server, store):
    _make_db(mariadb_server, store)
    _check(store, "mysql")


def test_postgres_connection_lost_mid_sync(pg_server, store):
    _make_db(pg_server, store)
    sync_datasource(store, "postgres")
    before = store.catalogs.load("postgres")
    admin = sa.create_engine(pg_server.admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)

    def kill(stage, done, total):
        if done == 1:  # the server drops every connection to the database between two tables
            with admin.connect() as conn:
                conn.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                     "WHERE datname = :db AND pid <> pg_backend_pid()"), {"db": DB})

    with pytest.raises(DatasourceUnreachable) as err:
        sync_datasource(store, "postgres", progress=kill, full=True)
    admin.dispose()
    assert err.value.code == "datasource_unreachable"
    assert store.catalogs.load("postgres") == before
