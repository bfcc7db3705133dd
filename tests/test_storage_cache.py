"""Result cache: key normalization, put/get, hits and eviction, the same for the app store's table and its
Redis twin (storage/cache_redis.py, on the real redis-server the tests start); Redis's own TTL."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa

from wenshu.storage.cache import make_key, normalize_sql
from wenshu.storage.cache_redis import RedisResultCache
from wenshu.storage.db import open_store
from wenshu.storage.redis_link import RedisLink
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import result_cache


@pytest.fixture
def store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


@pytest.fixture(params=["table", "redis"])
def cache(request, store):
    """The store's cache: its table, or (with a Redis link, as the server opens it) the shared Redis."""
    if request.param == "table":
        yield store.cache
        return
    link = RedisLink(request.getfixturevalue("redis_url"))
    shared = open_store(str(store.engine.url), redis=link, cache_ttl_s=60)
    assert isinstance(shared.cache, RedisResultCache)
    yield shared.cache
    shared.close()


def backdate(cache, key: str, seconds: float) -> None:
    """Make the entry `key` look `seconds` old, wherever it is stored."""
    if isinstance(cache, RedisResultCache):
        cache.link.client.hset("cache:" + key, "created", repr(time.time() - seconds))
        return
    with cache.engine.begin() as conn:
        conn.execute(sa.update(result_cache).where(result_cache.c.key == key)
                     .values(created_at=utcnow() - timedelta(seconds=seconds)))


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


def test_put_get_hits(cache):
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


def test_evict_and_max_age(cache):
    old, new = make_key("demo", "select 1", 1), make_key("demo", "select 2", 1)
    for k in (old, new):
        cache.put(k, datasource="demo", sql="select", data_version=1, columns=["a"], rows=[[1]])
    backdate(cache, old, 7200)
    assert cache.get(old, max_age_s=3600) is None
    assert cache.get(new, max_age_s=3600) is not None
    assert cache.evict_older_than(3600) == 1
    assert cache.get(old) is None and cache.get(new) is not None
    assert cache.clear("other") == 0
    assert cache.clear("demo") == 1


def test_forget_one_entry(cache):
    keep, drop = make_key("demo", "select 1", 1), make_key("demo", "select 2", 1)
    for k in (keep, drop):
        cache.put(k, datasource="demo", sql="select", data_version=1, columns=["a"], rows=[[1]])
    assert cache.forget(drop) and not cache.forget(drop)
    assert cache.get(drop) is None and cache.get(keep) is not None


def test_clear_everything_and_what_it_counts(cache):
    for i, ds in enumerate(["demo", "demo", "shop"]):
        cache.put(make_key(ds, f"select {i}", 1), datasource=ds, sql=f"select {i}", data_version=1, columns=["a"],
                  rows=[[i]])
    assert cache.get(make_key("shop", "select 2", 1)).rows == [[2]]
    assert cache.clear() == 3
    assert cache.get(make_key("shop", "select 2", 1)) is None and cache.clear() == 0


def test_redis_entries_expire_after_their_ttl(redis_url):
    link = RedisLink(redis_url)
    cache = RedisResultCache(link, ttl_s=0.3)
    key = make_key("demo", "select 1", 1)
    cache.put(key, datasource="demo", sql="select 1", data_version=1, columns=["a"], rows=[[1]])
    assert cache.get(key).hits == 1 and 0 < link.client.pttl("cache:" + key) <= 300
    time.sleep(0.45)
    assert cache.get(key) is None
    assert link.client.keys("*") == []  # the datasource's index expired with its newest entry
    cache.put(key, datasource="demo", sql="select 1", data_version=1, columns=["a"], rows=[[1]], ttl_s=30)
    assert 300 < link.client.pttl("cache:" + key) <= 30_000  # an entry's own TTL (the answer cache's)
    link.close()


def test_two_links_share_one_redis_cache(redis_url):
    """Two processes each open their own link: what one stores, the other finds, and hits add up."""
    first, second = RedisLink(redis_url), RedisLink(redis_url)
    a, b = RedisResultCache(first, ttl_s=60), RedisResultCache(second, ttl_s=60)
    key = make_key("demo", BASE, 3)
    a.put(key, datasource="demo", sql=BASE, data_version=3, columns=["city", "n"], rows=[["上海", 3]])
    assert b.get(key).rows == [["上海", 3]]
    assert a.get(key).hits == 2
    assert b.clear("demo") == 1 and a.get(key) is None
    first.close()
    second.close()
