"""Hybrid recall on the demo DB (Chinese and English), wide and unrelated inputs, and its wiring into the agent."""

from __future__ import annotations

import dataclasses

import pytest

from wenshu.agent.context import build_recall
from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.glossary import Glossary, GlossaryTerm
from wenshu.knowledge.hybrid import HybridRecall
from wenshu.knowledge.introspect import load_catalog
from wenshu.knowledge.recall import FullSchemaRecall
from wenshu.knowledge.sync import current_catalog
from wenshu.providers.embeddings import USEEmbedder
from wenshu.storage.vectors import EmbeddingCache, open_vector_index


@pytest.fixture(scope="module")
def catalog(demo_db_file):
    return load_catalog("demo", f"sqlite:///{demo_db_file}")


@pytest.fixture(scope="module")
def recall():
    """Whole-schema keeping off, so the ranking itself decides the block."""
    return HybridRecall(embedder=USEEmbedder(), keep_small=False)


def names(result) -> list[str]:
    return [t["name"] for t in result.tables]


def test_chinese_region_question_pins_the_value(recall, catalog):
    r = recall.recall("华东区上个月的销售额", catalog)
    assert "regions" in names(r)[:3] and "orders" in names(r)
    assert {"table": "regions", "column": "region_name", "value": "华东"} in r.values
    assert "TABLE regions" in r.schema_block and "region_name" in r.schema_block
    assert 0 < r.tokens < r.full_schema_tokens


def test_enum_label_pins_the_stored_code(recall, catalog):
    r = recall.recall("已支付的订单有多少", catalog)
    assert names(r)[0] == "orders"
    assert {"table": "orders", "column": "status", "value": "1", "label": "已支付"} in r.values


def test_english_question_and_join_closure(recall, catalog):
    r = recall.recall("number of customers per region", catalog)
    got = names(r)
    assert {"customers", "regions"} <= set(got)
    assert "cities" in got  # customers -> cities -> regions: the connecting table comes along
    cities = next(line for line in r.schema_block.splitlines() if line.startswith("TABLE cities"))
    assert "FK region_id -> regions.region_id" in cities


def test_columns_and_scores_are_reported(recall, catalog):
    r = recall.recall("退款原因分布", catalog)
    assert names(r)[0] == "refunds"
    top = r.columns[0]
    assert top["table"] == "refunds" and 0 < top["score"] <= 1
    assert all(0 <= t["score"] <= 1 for t in r.tables)
    assert r.tables == sorted(r.tables, key=lambda t: -t["score"])


def test_question_matching_nothing_is_an_empty_result(recall, catalog):
    r = recall.recall("今天天气怎么样", catalog)
    assert r.tables == [] and r.schema_block == "" and r.tokens == 0 and r.values == []
    assert r.full_schema_tokens > 0


def test_small_schema_is_kept_whole_with_value_hints(store):
    """The app-store wiring: vectors in the app DB, the catalog synced into it."""
    catalog = current_catalog(store, "demo")
    rec = HybridRecall(embedder=USEEmbedder(), index=open_vector_index(store.engine), cache=EmbeddingCache(store.engine),
                       budget=100_000)
    r = rec.recall("华东区的订单数", catalog)
    assert set(names(r)) == set(catalog.table_names())
    assert r.tokens == pytest.approx(r.full_schema_tokens, rel=0.05)
    assert any(v["value"] == "华东" for v in r.values)
    assert names(r)[0] in ("regions", "orders")  # ranked even when everything is kept


def test_budget_is_respected(catalog):
    tight = HybridRecall(keep_small=False, budget=120)
    r = tight.recall("每个城市每个品类的销售额和退款金额", catalog)
    assert r.tables and r.tokens <= 120 + 5


def test_glossary_terms_expand_the_query(catalog):
    gmv = GlossaryTerm("GMV", "已支付订单的实付金额之和", sql="SUM(orders.pay_amount)", synonyms=["成交额"],
                       tables=["orders"])
    r = HybridRecall(keep_small=False, glossary=Glossary([gmv])).recall("上周的成交额", catalog)
    assert names(r)[0] == "orders"
    assert r.glossary and r.glossary[0]["term"] == "GMV"
    without = HybridRecall(keep_small=False).recall("上周的成交额", catalog)
    assert names(without)[:1] != ["orders"] or without.tables[0]["score"] < r.tables[0]["score"]


def test_previous_sql_keeps_the_follow_up_on_its_tables(catalog):
    rec = HybridRecall(keep_small=False)
    r = rec.recall("只看小程序", catalog, previous_sql="SELECT c.city_name, COUNT(*) FROM orders o JOIN cities c "
                                                    "ON o.city_id = c.city_id GROUP BY 1")
    assert {"orders", "cities"} <= set(names(r))


def test_wide_table_with_2000_columns():
    cols = [ColumnInfo("id", "INTEGER", primary_key=True)]
    cols += [ColumnInfo(f"metric_{i}", "REAL", comment=f"指标{i}") for i in range(1, 1999)]
    cols.append(ColumnInfo("customer_segment", "TEXT", "客户分群", samples=["高价值", "流失预警"]))
    wide = TableInfo("wide_facts", "宽表", cols)
    cat = Catalog("wide", "sqlite", [wide, TableInfo("notes", "备注", [ColumnInfo("note", "TEXT")])])
    r = HybridRecall(embedder=USEEmbedder(), keep_small=False).recall("高价值客户有多少", cat)
    assert names(r)[0] == "wide_facts"
    assert {"table": "wide_facts", "column": "customer_segment", "value": "高价值"} in r.values
    shown = {c["column"] for c in r.columns if c["table"] == "wide_facts"}
    assert {"id", "customer_segment"} <= shown and len(shown) <= 12
    assert "more columns" in r.schema_block and r.tokens < r.full_schema_tokens / 20


def test_index_is_built_once_per_schema(catalog):
    rec = HybridRecall(keep_small=False)
    first = rec.index_for(catalog)
    copy = dataclasses.replace(catalog, tables=[dataclasses.replace(t) for t in catalog.tables])
    assert rec.index_for(copy) is first  # same content, another object: same index
    changed = dataclasses.replace(catalog, tables=catalog.tables[:-1])
    assert rec.index_for(changed) is not first


def test_recall_mode_setting_picks_the_implementation(settings, store):
    assert isinstance(build_recall(settings, store), HybridRecall)
    full = settings.model_copy(update={"recall_mode": "full"})
    assert isinstance(build_recall(full, store), FullSchemaRecall)


def test_default_build_keeps_vectors_in_sqlite_vec(settings, store, catalog):
    """The agent's default recall stores its dense vectors in sqlite-vec inside the app DB."""
    from wenshu.storage.vectors_sqlitevec import SqliteVecIndex

    rec = build_recall(settings, store)
    assert isinstance(rec.index, SqliteVecIndex)
    r = rec.recall("华东区上个月的销售额", catalog)
    assert "regions" in names(r)
    with store.engine.connect() as conn:
        in_vec0 = conn.exec_driver_sql("SELECT count(*) FROM vec_index_512 WHERE datasource = 'demo'").scalar()
        in_items = conn.exec_driver_sql("SELECT count(*) FROM vector_items WHERE datasource = 'demo'").scalar()
    assert in_vec0 == in_items == len(rec.index_for(catalog).docs)
    question = rec.embedder.embed(["华东区上个月的销售额"])[0]
    assert rec.index.search(question, 5, "demo")  # dense hits come from the vec0 table


def test_agent_recall_node_feeds_block_and_values_to_generation(agent, fake_model):
    from wenshu.contracts import AgentRequest

    assert isinstance(agent.recall, HybridRecall)
    sql = ("SELECT COUNT(*) AS n FROM orders o JOIN cities c ON o.city_id = c.city_id "
           "JOIN regions r ON c.region_id = r.region_id WHERE r.region_name = '华东' AND o.status = 1")
    fake_model.queue(f"```sql\n{sql}\n```")
    resp = agent.ask(AgentRequest(message="华东区的订单数"))
    assert resp.error is None and resp.row_count == 1
    prompt = "\n".join(m.content for m in fake_model.calls[-1])
    assert "TABLE regions" in prompt and "region_name" in prompt  # the recalled schema block
    assert "华东" in prompt
