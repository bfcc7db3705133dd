"""The persisted prompt prefix with the real embedded model: built once with progress, loaded from disk
with the same greedy answer as a fresh evaluation, and rebuilt after a schema change."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.agent.generate import GenerateInput, build_messages
from wenshu.knowledge.introspect import load_catalog
from wenshu.knowledge.recall import FullSchemaRecall
from wenshu.providers.prefix_cache import PrefixCache
from wenshu.providers.prefix_store import PrefixStore


def shop_db(path):
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                                 amount REAL, created_at TEXT);
            INSERT INTO customers VALUES (1, 'Ann', 'Paris'), (2, 'Bo', 'Rome');
            INSERT INTO orders VALUES (1, 1, 10.5, '2026-11-02'), (2, 2, 20, '2026-11-03');
        """)
    return path


def messages(db, question: str, label: str = "shop"):
    block = FullSchemaRecall(None, k=0).recall(question, load_catalog(label, f"sqlite:///{db}")).schema_block
    inp = GenerateInput(question=question, dialect="sqlite", schema_block=block, today="2026-12-01", row_limit=100,
                        examples=[], history=[], prefix_cache=label)
    return build_messages(inp)


def test_the_generate_prompt_marks_a_whole_schema_as_a_stable_prefix(store):
    from wenshu.knowledge.hybrid import HybridRecall
    from wenshu.knowledge.introspect import load_catalog as load

    catalog = load("demo", store.datasources.get("demo").url)
    a, b = (HybridRecall().recall(q, catalog) for q in ("上个月各大区的销售额", "how many customers are there"))
    assert a.whole and b.whole and a.schema_block == b.schema_block  # the demo fits the budget: whole
    narrow = HybridRecall(budget=200).recall("上个月各大区的销售额", catalog)
    assert not narrow.whole
    inp = GenerateInput(question="q", dialect="sqlite", schema_block=a.schema_block, today="2026-12-01",
                        row_limit=10, examples=[], history=[], prefix_cache="demo")
    assert build_messages(inp)[0].additional_kwargs == {"prefix_cache": "demo"}


@pytest.fixture
def model(real_model_path, tmp_path):
    from wenshu.providers.llamacpp import ChatLlamaCpp

    store = PrefixStore(tmp_path / "prefix", max_bytes=256 << 20)
    cache = PrefixCache(store, "test-model-hash", min_tokens=32)
    return ChatLlamaCpp(model_path=real_model_path, n_ctx=2048, max_tokens=24, prefix_cache=cache)


def ask(model, msgs):
    events = []
    text = model.invoke(msgs, on_progress=events.append).content
    return text, events


def forget(model):
    """A new process: nothing of the prompt is left in the context."""
    model.llama.reset()


@pytest.mark.model
def test_a_saved_prefix_answers_like_a_fresh_evaluation(model, tmp_path):
    db = shop_db(tmp_path / "shop.sqlite")
    question = messages(db, "Total order amount per city")
    forget(model)
    built, events = ask(model, question)
    stages = [e["stage"] for e in events]
    assert stages[0] == "prefix" and events[0]["done"] == 0 and events[-2]["done"] == events[-2]["total"]
    assert events[-1] == {"stage": "prefix_ready", "source": "built", "tokens": events[-2]["total"]}
    assert len(model.prefix_cache.store.files()) == 1

    again, events = ask(model, messages(db, "How many customers are there"))
    assert events == []  # the prefix is still in the context: nothing to build or load

    forget(model)
    loaded, events = ask(model, question)
    assert events == [{"stage": "prefix_ready", "source": "disk", "tokens": events[0]["tokens"]}]
    assert loaded == built  # greedy: the loaded state gives the same tokens as evaluating it

    forget(model)
    plain = model.model_copy(update={"prefix_cache": None})
    # The whole prompt in one go splits into other batches, which may move a near-tie in the model's choice of
    # whitespace (llama.cpp's sums run in another order); the SQL is the same.
    assert " ".join(ask(plain, question)[0].split()) == " ".join(built.split())


@pytest.mark.model
def test_a_schema_change_invalidates_the_saved_prefix(model, tmp_path):
    db = shop_db(tmp_path / "shop.sqlite")
    store = model.prefix_cache.store
    forget(model)
    ask(model, messages(db, "Total order amount per city"))
    (before,) = store.files()
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE customers ADD COLUMN vip INTEGER DEFAULT 0")
    forget(model)
    _, events = ask(model, messages(db, "Total order amount per city"))
    assert events[-1]["source"] == "built"  # the old state is never used for the new schema
    (after,) = store.files()  # ... and it is gone: one prefix per datasource
    assert after != before and not before.exists()


@pytest.mark.model
def test_a_call_aside_leaves_the_context_as_it_found_it(model):
    from langchain_core.messages import HumanMessage, SystemMessage

    system = SystemMessage("You answer in one short sentence about the shop's orders, refunds and customers.")
    first, second = [system, HumanMessage("What is a refund?")], [system, HumanMessage("What is an order?")]
    forget(model)
    model.invoke(first)
    expected = model.invoke(second).content  # the second prompt read right after the first
    forget(model)
    model.invoke(first)
    before = model.llama.input_ids[: model.llama.n_tokens].tolist()
    model.invoke([HumanMessage("Translate into English: 你好")], aside=True)
    assert model.llama.input_ids[: model.llama.n_tokens].tolist() == before  # the tokens and their KV cache are back
    assert model.invoke(second).content == expected  # greedy: the restored cache answers like the live one
    model.invoke([HumanMessage("Translate into English: 你好")])  # not aside: the context moves on
    assert model.llama.input_ids[: model.llama.n_tokens].tolist() != before
