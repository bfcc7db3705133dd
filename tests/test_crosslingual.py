"""Cross-lingual value linking (knowledge/crosslingual.py, check id `crosslingual_values`): the Chinese
words of a question reach the English values a database stores, through the real multilingual
embedder, on a real SQLite file; and the switch turns it off."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.contracts import AgentRequest
from wenshu.knowledge.crosslingual import CrossLingualValues, question_words
from wenshu.knowledge.hybrid import HybridRecall
from wenshu.knowledge.value_index import ValueIndex
from wenshu.providers.embeddings import USEEmbedder

COUNTRIES = ["France", "Netherlands", "United States", "Germany", "Japan"]


@pytest.fixture(scope="module")
def embedder():
    return USEEmbedder()


def _catalog() -> Catalog:
    singer = TableInfo("singer", columns=[
        ColumnInfo("singer_id", "INTEGER", primary_key=True),
        ColumnInfo("name", "TEXT", samples=["Joe Sharp", "Rose White"]),
        ColumnInfo("country", "TEXT", samples=COUNTRIES, low_cardinality=True),
        ColumnInfo("gender", "TEXT", samples=["Male", "Female"], low_cardinality=True),
    ])  # fmt: skip
    return Catalog("music", "sqlite", [singer])


def test_chinese_words_link_to_the_english_values_they_name(embedder):
    linker = CrossLingualValues.build(ValueIndex.from_catalog(_catalog()), embedder)
    hits = {(h.matched, h.column, h.value) for h in linker.match("来自法国的女歌手有多少位？", embedder)}
    assert ("法国", "country", "France") in hits and ("女", "gender", "Female") in hits
    assert not {h for h in hits if h[0] in ("歌手", "多少")}  # no value is a singer: nothing links
    assert linker.match("How many singers are from France?", embedder) == []  # no Chinese words
    assert question_words("来自法国的女歌手") == ["来自", "法国", "女歌手", "女", "歌手"]  # 女 + 歌手 in parts


def test_a_word_close_to_two_values_links_to_neither(embedder):
    catalog = Catalog("c", "sqlite", [TableInfo("t", columns=[
        ColumnInfo("city", "TEXT", samples=["New York", "New York City"], low_cardinality=True)])])  # fmt: skip
    linker = CrossLingualValues.build(ValueIndex.from_catalog(catalog), embedder)
    assert linker.match("纽约有多少人", embedder) == []  # too close to call: no margin between the two


def test_recall_adds_the_linked_values_and_says_so(embedder):
    got = HybridRecall(embedder=embedder, k_examples=0, crosslingual=True).recall("法国有多少歌手", _catalog())
    assert {"table": "singer", "column": "country", "value": "France"} in got.values
    assert got.signals.get("crosslingual") == 1
    off = HybridRecall(embedder=embedder, k_examples=0, crosslingual=False).recall("法国有多少歌手", _catalog())
    assert not off.values and "crosslingual" not in off.signals


@pytest.fixture
def music(store, tmp_path):
    path = tmp_path / "music.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT)")
        conn.executemany("INSERT INTO singer VALUES (?, ?, ?)",
                         [(i, f"Singer {i}", COUNTRIES[i % len(COUNTRIES)]) for i in range(1, 21)])
    store.datasources.add("music", f"sqlite:///{path}")
    return "music"


@pytest.mark.parametrize("disabled", [[], ["crosslingual_values"]])
def test_the_pipeline_shows_the_linked_value_and_the_switch_removes_it(settings, store, fake_model, music, disabled):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    fake_model.queue("SELECT COUNT(*) AS n FROM singer WHERE country = 'France'")
    off = [*disabled, "plain_reading", "plain_preferred"]  # one scripted answer: no second reading
    agent = Agent(settings.model_copy(update={"disabled_checks": off}), store,
                  models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))  # fmt: skip
    resp = agent.ask(AgentRequest(message="法国有多少位歌手？", datasource=music))
    assert resp.error is None and resp.rows == [[4]]
    prompt = "\n".join(str(m.content) for m in fake_model.calls[-1])
    recall = next(t for t in resp.trace if t.node == "recall")
    if disabled:
        assert "singer.country = 'France'" not in prompt and not recall.checks
    else:
        assert "singer.country = 'France'" in prompt and recall.checks == ["crosslingual_values"]
