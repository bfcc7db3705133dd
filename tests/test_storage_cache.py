"""Result cache: key normalization, put/get, hits and eviction."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa

from wenshu.storage.cache import make_key, normalize_sql
from wenshu.storage.db import open_store
from wenshu.storage.schema import result_cache, utcnow


@pytest.fixture
def store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


BASE = "SELECT city, count(*) FROM orders WHERE status = 'Paid' GROUP BY city"


@pytest.mark.parametrize(
    "variant",
    [
        BASE,
        BASE + ";",
        BASE + " ;\n",
        "select city, COUNT(*) from ORDERS where STATUS = 'Paid' group by CITY",
        "  SELECT   city,\n\tcount(*)\nFROM orders\n  WHERE status = 'Paid'\nGROUP BY city;;",
    ],
)
def test_same_key_for_case_and_layout_variants(variant):
    assert make_key("demo", variant, 1) == make_key("demo", BASE, 1)


@pytest.mark.parametrize(
    "other",
    [
        BASE.replace("'Paid'", "'paid'"),  # literal case matters
        BASE.replace("'Paid'", "'Paid '"),  # literal whitespace matters
        BASE.replace("'Paid'", "'Pa  id'"),
        BASE.replace("orders", '"Orders"'),  # quoted identifiers keep their case
        BASE.replace("city", "region"),
    ],
)
def test_different_key_for_different_sql(other):
    assert make_key("demo", other, 1) != make_key("demo", BASE, 1)


def test_key_depends_on_datasource_and_data_version():
    k = make_key("demo", BASE, "v1")
    assert make_key("demo", BASE, "v2") != k
    assert make_key("shop", BASE, "v1") != k
    assert make_key("demo", BASE, "v1") == k
    assert len(k) == 64 and int(k, 16) >= 0
    # No ambiguity from plain concatenation.
    assert make_key("ab", "c", "1") != make_key("a", "bc", "1")


def test_normalize_sql_keeps_quoted_text():
    assert (
        normalize_sql("SELECT 'It''S  Here' AS \"My Col\" FROM T;")
        == "select 'It''S  Here' as \"My Col\" from t"
    )
    assert normalize_sql("SELECT x -- Keep Me\nFROM T") == "select x -- Keep Me\nfrom t"
    assert normalize_sql("SELECT $$Ab C$$") == "select $$Ab C$$"
    # Backslashes read differently per engine: the rest is kept verbatim.
    assert normalize_sql("SELECT 'a\\' || 'B' FROM T") == "select 'a\\' || 'B' FROM T"
    assert normalize_sql("SELECT 'unterminated ;") == "select 'unterminated ;"


def test_put_get_hits(store):
    cache = store.cache
    key = cache.make_key("demo", BASE, 7)
    assert cache.get(key) is None
    cache.put(
        key,
        datasource="demo",
        sql=BASE,
        data_version=7,
        columns=["city", "n"],
        rows=[("上海", 3), ("Beijing", Decimal("2")), ("x", Decimal("1.5"))],
        truncated=True,
    )
    first = cache.get(key)
    assert first.rows == [["上海", 3], ["Beijing", 2], ["x", 1.5]]
    assert (first.columns, first.row_count, first.truncated, first.data_version) == (
        ["city", "n"],
        3,
        True,
        "7",
    )
    assert first.hits == 1
    assert cache.get(key).hits == 2
    assert cache.get(make_key("demo", BASE.replace("SELECT", "select") + ";", 7)).hits == 3

    # Replacing an entry resets it.
    cache.put(
        key, datasource="demo", sql=BASE, data_version=7, columns=["n"], rows=[[1]], row_count=99
    )
    again = cache.get(key)
    assert (again.rows, again.row_count, again.hits) == ([[1]], 99, 1)


def test_evict_and_max_age(store):
    cache = store.cache
    old, new = make_key("demo", "select 1", 1), make_key("demo", "select 2", 1)
    for k in (old, new):
        cache.put(k, datasource="demo", sql="select", data_version=1, columns=["a"], rows=[[1]])
    with store.engine.begin() as conn:
        conn.execute(
            sa.update(result_cache)
            .where(result_cache.c.key == old)
            .values(created_at=utcnow() - timedelta(hours=2))
        )
    assert cache.get(old, max_age_s=3600) is None
    assert cache.get(new, max_age_s=3600) is not None
    assert cache.evict_older_than(3600) == 1
    assert cache.get(old) is None and cache.get(new) is not None
    assert cache.clear("other") == 0
    assert cache.clear("demo") == 1
