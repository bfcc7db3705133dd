"""Vector index conformance (every implementation runs the same tests) and the embedding cache."""

from __future__ import annotations

import numpy as np
import pytest

from wenshu.knowledge.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.documents import build_documents
from wenshu.knowledge.recall_index import sync_vectors
from wenshu.providers.embeddings import USEEmbedder
from wenshu.storage.db import make_engine
from wenshu.storage.vectors import EmbeddingCache, MemoryVectorIndex, TableVectorIndex
from wenshu.storage.vectors_sqlitevec import SqliteVecIndex, sqlite_vec_available


def _unit(*xs):
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture(params=["table", "memory", "sqlite-vec"])
def index(request, tmp_path):
    if request.param == "memory":
        yield MemoryVectorIndex()
        return
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    if request.param == "sqlite-vec":
        if not sqlite_vec_available():
            pytest.skip("this Python's sqlite3 cannot load extensions; the exact table index stands in")
        yield SqliteVecIndex(engine)
    else:
        yield TableVectorIndex(engine)
    engine.dispose()


def test_search_ranks_by_cosine_within_a_datasource(index):
    index.upsert("a", ["x", "y", "z"], np.vstack([_unit(1, 0, 0), _unit(0, 1, 0), _unit(1, 1, 0)]), ["h1", "h2", "h3"])
    index.upsert("b", ["x"], np.vstack([_unit(1, 0, 0)]), ["hb"])
    hits = index.search(_unit(1, 0.1, 0), 3, "a")
    assert [h[0] for h in hits] == ["x", "z", "y"]
    assert hits[0][1] == pytest.approx(float(_unit(1, 0.1, 0) @ _unit(1, 0, 0)), abs=1e-4)
    assert [h[0] for h in index.search(_unit(0, 1, 0), 5, "b")] == ["x"]
    assert index.search(_unit(1, 0, 0), 3, "nothing") == []


def test_upsert_replaces_and_delete_removes(index):
    index.upsert("a", ["x", "y"], np.vstack([_unit(1, 0, 0), _unit(0, 1, 0)]), ["h1", "h2"])
    index.upsert("a", ["x"], np.vstack([_unit(0, 0, 1)]), ["h1b"])
    assert index.hashes("a") == {"x": "h1b", "y": "h2"}
    assert index.search(_unit(0, 0, 1), 1, "a")[0][0] == "x"
    index.delete("a", ["y"])
    assert index.hashes("a") == {"x": "h1b"}
    index.delete("a")
    assert index.hashes("a") == {} and index.search(_unit(0, 0, 1), 1, "a") == []


def test_embedding_cache_roundtrip(tmp_path):
    cache = EmbeddingCache(make_engine(f"sqlite:///{tmp_path / 'app.db'}"))
    cache.put("m", ["h1", "h2"], np.vstack([_unit(1, 0), _unit(0, 1)]))
    cache.put("m", ["h1"], np.vstack([_unit(1, 0)]))  # already there: no error
    got = cache.get("m", ["h1", "h2", "h3"])
    assert set(got) == {"h1", "h2"} and np.allclose(got["h2"], _unit(0, 1))
    assert cache.get("other-model", ["h1"]) == {}


class CountingEmbedder:
    """The real embedded model, counting how many texts it is asked to embed."""

    def __init__(self):
        self.inner, self.name, self.count = USEEmbedder(), "usem3-v3", 0

    def embed(self, texts):
        self.count += len(texts)
        return self.inner.embed(texts)


def _catalog(comment: str) -> Catalog:
    return Catalog("shop", "sqlite", [TableInfo("orders", "订单表", [ColumnInfo("order_id", "INTEGER", "订单ID", primary_key=True),
                                                                  ColumnInfo("amount", "REAL", comment)])])


def test_only_changed_documents_are_embedded(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    index, cache, emb = TableVectorIndex(engine), EmbeddingCache(engine), CountingEmbedder()
    first = sync_vectors(build_documents(_catalog("金额")), "shop", emb, index, cache)
    assert first["embedded"] == 3 and emb.count == 3
    again = sync_vectors(build_documents(_catalog("金额")), "shop", emb, index, cache)
    assert again["updated"] == 0 and emb.count == 3
    changed = sync_vectors(build_documents(_catalog("实付金额")), "shop", emb, index, cache)
    assert changed["updated"] == 1 and emb.count == 4
    # a fresh index over the same app DB (another process) takes vectors from the cache, embeds nothing
    other = MemoryVectorIndex()
    assert sync_vectors(build_documents(_catalog("实付金额")), "shop", emb, other, cache)["embedded"] == 0
    assert emb.count == 4
