"""The few-shot library: app-store repository, retrieval, skeletons, YAML round trip and demo seeding."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from wenshu.errors import DuplicateEntry, InvalidExampleSQL, NotFound
from wenshu.knowledge.examples import BundledExamples, LibraryExamples, parse_yaml, rank
from wenshu.knowledge.seed import seed_bundled
from wenshu.knowledge.skeleton import skeleton, skeleton_similarity
from wenshu.storage.db import open_store


@pytest.fixture
def app_store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


@pytest.fixture
def lib(app_store):
    return LibraryExamples(app_store.examples)


def test_migration_creates_the_tables(app_store):
    names = set(sa.inspect(app_store.engine).get_table_names())
    assert {"examples", "glossary_terms"} <= names


def test_skeleton_abstracts_literals_and_identifiers():
    a = skeleton("SELECT city_name, COUNT(*) AS n FROM orders WHERE status = 1 GROUP BY city_name LIMIT 10")
    b = skeleton("select brand, count(*) as k from products where price = 99.5 group by brand limit 3")
    assert a == b == "SELECT _, COUNT(*) AS _ FROM _ WHERE _ = ? GROUP BY _ LIMIT ?"
    other = skeleton("SELECT SUM(x) FROM t JOIN u ON t.id = u.id WHERE d >= date('now', '-7 days')", "sqlite")
    assert skeleton_similarity(a, b) == 1.0 and skeleton_similarity(a, other) < 0.8
    assert "?" in skeleton("SELEC broken 'x' FROM")  # unparsable SQL still gets a skeleton


def test_add_checks_sql_and_refuses_duplicates(lib, app_store):
    e = lib.add("shop", "How many orders?", "SELECT COUNT(*) FROM orders;", query_type="aggregate")
    assert e.status == "active" and e.source == "user" and e.approved_at is not None
    assert e.sql == "SELECT COUNT(*) FROM orders" and e.skeleton == "SELECT COUNT(*) FROM _"
    with pytest.raises(DuplicateEntry):
        lib.add("shop", "  how many ORDERS ", "SELECT 1")
    lib.add("other", "How many orders?", "SELECT 1")  # another datasource is another library
    with pytest.raises(InvalidExampleSQL):
        lib.add("shop", "drop it", "DROP TABLE orders")
    with pytest.raises(InvalidExampleSQL):
        lib.add("shop", "two", "SELECT 1; SELECT 2")
    with pytest.raises(InvalidExampleSQL):
        lib.add("shop", "broken", "SELECT FROM WHERE (")
    assert app_store.examples.count("shop") == 1


def test_only_active_examples_are_served(lib, app_store):
    active = lib.add("shop", "orders per city", "SELECT city, COUNT(*) FROM orders GROUP BY city")
    pending = lib.add("shop", "orders per city last month", "SELECT city, COUNT(*) FROM orders GROUP BY city",
                      status="pending", source="learned", conversation_id="c1")
    assert pending.approved_at is None
    assert [e["id"] for e in lib.similar("shop", "orders per city last month", 5)] == [active.id]
    app_store.examples.set_status(pending.id, "active")
    assert lib.similar("shop", "orders per city last month", 5)[0]["id"] == pending.id
    app_store.examples.set_status(pending.id, "rejected")
    assert [e["id"] for e in lib.similar("shop", "orders per city last month", 5)] == [active.id]
    assert [e.id for e in app_store.examples.list("shop", status="rejected")] == [pending.id]
    assert [e.id for e in app_store.examples.by_conversation("c1")] == [pending.id]
    app_store.examples.remove(active.id)
    with pytest.raises(NotFound):
        app_store.examples.get(active.id)
    with pytest.raises(NotFound):
        app_store.examples.set_status(active.id, "active")


def test_rare_words_outweigh_common_ones():
    examples = [
        {"question": "上个月的销售额", "sql": "SELECT SUM(a) FROM t"},
        {"question": "上个月的订单量", "sql": "SELECT COUNT(*) FROM t"},
        {"question": "上个月的客户数", "sql": "SELECT COUNT(*) FROM c"},
        {"question": "本周退款金额", "sql": "SELECT SUM(r) FROM r"},
    ]
    got = rank("本周的退款金额是多少", examples, 2)
    assert got[0]["question"] == "本周退款金额"
    assert rank("天气", examples, 3) == []  # nothing in common: no example


def test_sql_shape_breaks_ties_and_near_duplicate_shapes_are_served_once():
    group = "SELECT city, COUNT(*) AS n FROM orders GROUP BY city ORDER BY n DESC LIMIT 5"
    examples = [
        {"question": "orders by city", "sql": "SELECT SUM(pay) FROM orders WHERE d > date('now', '-7 days')"},
        {"question": "orders by channel", "sql": group.replace("city", "channel")},
        {"question": "orders by brand", "sql": group.replace("city", "brand")},
        {"question": "orders daily", "sql": "SELECT d, COUNT(*) FROM orders GROUP BY d"},
    ]
    plain = [e["question"] for e in rank("orders by region", examples, 2)]
    assert plain == ["orders by city", "orders by channel"]
    shaped = [e["question"] for e in rank("orders by region", examples, 2, sql=group)]
    assert shaped[0] == "orders by channel"  # the shape of the candidate SQL wins the tie
    assert "orders by brand" not in shaped  # same shape as "channel": the slot goes to another shape
    assert len(rank("orders by region", examples, 4, sql=group)) == 4  # duplicates fill up when needed


def test_yaml_round_trip_and_import_is_all_or_nothing(lib, app_store):
    lib.add("shop", "Top 5 cities", "SELECT city FROM orders\nGROUP BY city\nLIMIT 5", query_type="top_n")
    text = lib.export_yaml("shop")
    assert "sql: |" in text
    assert parse_yaml(text) == [{"question": "Top 5 cities", "sql": "SELECT city FROM orders\nGROUP BY city\nLIMIT 5",
                                 "query_type": "top_n"}]
    assert lib.import_yaml("copy", text) == (1, 0)
    assert lib.import_yaml("copy", text) == (0, 1)
    bad = text + "- question: bad one\n  sql: DELETE FROM orders\n"
    with pytest.raises(InvalidExampleSQL):
        lib.import_yaml("fresh", bad)
    assert app_store.examples.count("fresh") == 0


def test_demo_seed_is_idempotent_and_keeps_removals(app_store):
    bundled = BundledExamples().all("demo")
    assert len(bundled) >= 30
    done = seed_bundled(app_store, "demo", "sqlite")
    assert done["examples"] == len(bundled) and done["glossary"] >= 10
    assert seed_bundled(app_store, "demo", "sqlite") == {"examples": 0, "glossary": 0}
    first = app_store.examples.list("demo")[0]
    assert first.source == "bundled" and first.status == "active" and first.skeleton
    app_store.examples.remove(first.id)
    seed_bundled(app_store, "demo", "sqlite")
    assert app_store.examples.count("demo") == len(bundled) - 1
    assert seed_bundled(app_store, "other", None) == {"examples": 0, "glossary": 0}


def test_store_fixture_serves_the_demo_library(store):
    lib = LibraryExamples(store.examples)
    got = lib.similar("demo", "本月华东区每天的订单量是多少", 2)
    assert got[0]["question"] == "本月华东大区每天的已支付订单量"


@pytest.fixture
def demo_lib(app_store):
    seed_bundled(app_store, "demo", "sqlite")
    return app_store


def questions(got) -> list[str]:
    return [e["question"] for e in got]


def test_glossary_synonyms_count_as_the_same_word(demo_lib):
    from wenshu.knowledge.glossary import GlossaryLibrary

    q = "各城市的平均订单金额"  # 平均订单金额 is a synonym of 客单价 / average order value
    plain = questions(LibraryExamples(demo_lib.examples).similar("demo", q, 3))
    expanded = questions(LibraryExamples(demo_lib.examples, glossary=GlossaryLibrary(demo_lib.glossary))
                         .similar("demo", q, 3))
    assert "What was the average order value last month?" not in plain
    assert expanded[0] == "What was the average order value last month?"


def test_the_embedding_model_adds_cross_lingual_matches(demo_lib, settings):
    from wenshu.providers.embeddings import get_embedder

    q = "每个月新注册的客户数量"
    english = "How many new customers registered last month, by gender?"
    assert english not in questions(LibraryExamples(demo_lib.examples).similar("demo", q, 3))
    dense = LibraryExamples(demo_lib.examples, embedder=get_embedder(settings))
    assert english in questions(dense.similar("demo", q, 3))
    assert questions(dense.similar("demo", "上周的销售额是多少", 1)) == ["上周的销售额是多少？"]
