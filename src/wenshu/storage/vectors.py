"""The vector index: document vectors per datasource, searched by cosine similarity.

These are the implementations of `VectorIndex`, the interface its consumer declares
(`wenshu.knowledge.recall_index`). `open_vector_index(engine, name)` opens one by its registered name
(`wenshu.vector_indexes` entry points; docs/plugins.md); `auto` returns:

- `SqliteVecIndex` (storage/vectors_sqlitevec.py) when the app DB is SQLite and the app engine's
  `sqlite3` module loads the sqlite-vec extension (storage/db.py opens SQLite through
  `vectors_sqlitevec.sqlite_dbapi()`, which falls back to the `sqlean.py` package where the Python
  build cannot load extensions);
- `PgVectorIndex` (storage/vectors_pgvector.py) when the app DB is PostgreSQL and the server has the
  pgvector extension (created on first use);
- else `TableVectorIndex`: vectors in a plain app-DB table and an exact numpy search over the
  datasource's rows, cached in memory. This is what runs when neither stdlib `sqlite3` nor `sqlean`
  can load extensions, on a PostgreSQL without pgvector, or with `WENSHU_VECTOR_INDEX=exact`. Exact search over a few thousand 512-d vectors takes a millisecond or two.

Rows carry the content hash of their document, so a rebuild only re-embeds what changed.
The plain tables (`vector_items`, `embedding_cache`) are app-store tables (storage/schema.py, created
by the migrations); opening an index on an engine that is not yet an app store migrates it.
sqlite-vec's virtual tables are created on first use (see vectors_sqlitevec.py).
"""

from __future__ import annotations

import threading

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.errors import InputError
from wenshu.plugins import load_into
from wenshu.storage.schema import embedding_cache, vector_items

CHUNK = 500


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def ensure_tables(engine: Engine) -> None:
    """The vector tables are app-store tables: a bare engine (a benchmark, a test) is migrated first."""
    if not sa.inspect(engine).has_table(vector_items.name):
        from wenshu.storage.migrations import migrate

        migrate(engine)


def delete_rows(conn, table: sa.Table, datasource: str, ids: list[str] | None) -> None:
    """Delete a datasource's rows from a table keyed by (datasource, doc_id): these ids, or all (None)."""
    where = table.c.datasource == datasource
    if ids is None:
        conn.execute(table.delete().where(where))
        return
    for start in range(0, len(ids), CHUNK):
        conn.execute(table.delete().where(where, table.c.doc_id.in_(ids[start : start + CHUNK])))


def top_k(matrix: np.ndarray, ids: list[str], vector: np.ndarray, k: int) -> list[tuple[str, float]]:
    """Exact cosine top-k over L2-normalised rows; a query of another dimension matches nothing."""
    vector = np.asarray(vector, dtype=np.float32)
    if not ids or k <= 0 or matrix.shape[1] != vector.shape[0]:
        return []
    scores = matrix @ vector
    k = min(k, len(ids))
    part = np.argpartition(-scores, k - 1)[:k]
    order = part[np.argsort(-scores[part], kind="stable")]
    return [(ids[i], float(scores[i])) for i in order]


class TableVectorIndex:
    """Vectors in the `vector_items` table; exact search in numpy (any SQLAlchemy app DB)."""

    kind = "exact"

    def __init__(self, engine: Engine, reason: str = ""):
        self.engine, self.reason = engine, reason
        ensure_tables(engine)
        self._matrices: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def describe(self) -> str:
        return "exact (numpy over vector_items)" + (f": {self.reason}" if self.reason else "")

    def upsert(self, datasource: str, ids: list[str], vectors: np.ndarray, hashes: list[str]) -> None:
        if not ids:
            return
        with self.engine.begin() as conn:
            self._upsert_rows(conn, datasource, ids, vectors, hashes)
        self._forget(datasource)

    def _upsert_rows(self, conn, datasource, ids, vectors, hashes) -> None:
        delete_rows(conn, vector_items, datasource, ids)
        rows = [{"datasource": datasource, "doc_id": i, "hash": h, "dim": int(v.shape[0]), "vector": to_blob(v)}
                for i, v, h in zip(ids, vectors, hashes, strict=True)]
        for start in range(0, len(rows), CHUNK):
            conn.execute(vector_items.insert(), rows[start : start + CHUNK])

    def hashes(self, datasource: str) -> dict[str, str]:
        q = sa.select(vector_items.c.doc_id, vector_items.c.hash).where(vector_items.c.datasource == datasource)
        with self.engine.connect() as conn:
            return dict(conn.execute(q).all())

    def delete(self, datasource: str, ids: list[str] | None = None) -> None:
        with self.engine.begin() as conn:
            self._delete_rows(conn, datasource, ids)
        self._forget(datasource)

    def _delete_rows(self, conn, datasource: str, ids: list[str] | None) -> None:
        delete_rows(conn, vector_items, datasource, ids)

    def search(self, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        ids, matrix = self._matrix(datasource)
        return top_k(matrix, ids, vector, k)

    def _matrix(self, datasource: str) -> tuple[list[str], np.ndarray]:
        with self._lock:
            if datasource not in self._matrices:
                q = sa.select(vector_items.c.doc_id, vector_items.c.vector).where(
                    vector_items.c.datasource == datasource).order_by(vector_items.c.doc_id)
                with self.engine.connect() as conn:
                    rows = conn.execute(q).all()
                ids = [r[0] for r in rows]
                matrix = np.vstack([from_blob(r[1]) for r in rows]) if rows else np.zeros((0, 1), np.float32)
                self._matrices[datasource] = (ids, matrix)
            return self._matrices[datasource]

    def _forget(self, datasource: str) -> None:
        with self._lock:
            self._matrices.pop(datasource, None)


class EmbeddingCache:
    """Vectors by (model, content hash): a document embedded once is never embedded again."""

    def __init__(self, engine: Engine):
        self.engine = engine
        ensure_tables(engine)

    def get(self, model: str, hashes: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(hashes))
        with self.engine.connect() as conn:
            for start in range(0, len(wanted), CHUNK):
                q = sa.select(embedding_cache.c.hash, embedding_cache.c.vector).where(
                    embedding_cache.c.model == model, embedding_cache.c.hash.in_(wanted[start : start + CHUNK]))
                out.update({h: from_blob(v) for h, v in conn.execute(q)})
        return out

    def put(self, model: str, hashes: list[str], vectors: np.ndarray) -> None:
        rows = {h: v for h, v in zip(hashes, vectors, strict=True)}
        known = self.get(model, list(rows))
        fresh = [{"model": model, "hash": h, "dim": int(v.shape[0]), "vector": to_blob(v)}
                 for h, v in rows.items() if h not in known]
        try:
            with self.engine.begin() as conn:
                for start in range(0, len(fresh), CHUNK):
                    conn.execute(embedding_cache.insert(), fresh[start : start + CHUNK])
        except sa.exc.IntegrityError:
            pass  # another process cached the same vectors first; a cache may miss, never be wrong


def open_auto(engine: Engine):
    """sqlite-vec inside a SQLite app DB when the extension loads, pgvector inside a PostgreSQL one when
    the server has it; else the exact table index."""
    if engine.dialect.name == "postgresql":
        from wenshu.storage.vectors_pgvector import PgVectorIndex, PgVectorUnavailable

        try:
            return PgVectorIndex(engine)
        except PgVectorUnavailable as exc:
            return TableVectorIndex(engine, f"pgvector is not available on this PostgreSQL ({exc}); install "
                                            "postgresql-NN-pgvector on the server, or CREATE EXTENSION vector as a superuser")
    if engine.dialect.name != "sqlite":
        return TableVectorIndex(engine, f"no vector extension for a {engine.dialect.name} app DB")
    from wenshu.storage.vectors_sqlitevec import SqliteVecIndex, engine_loads_sqlite_vec, sqlite_vec_available

    if engine_loads_sqlite_vec(engine):
        return SqliteVecIndex(engine)
    if sqlite_vec_available():
        return TableVectorIndex(engine, "the app engine's sqlite3 module cannot load extensions")
    return TableVectorIndex(engine, "neither this Python's sqlite3 nor sqlean.py can load sqlite-vec")


def open_exact(engine: Engine) -> TableVectorIndex:
    return TableVectorIndex(engine, "WENSHU_VECTOR_INDEX=exact")


VECTOR_INDEXES: dict = {}  # name -> factory(app engine) -> a VectorIndex; filled from entry points


class UnknownVectorIndex(InputError):
    code = "unknown_vector_index"

    def __init__(self, name: str, known: list[str]):
        listed = ", ".join(known)
        super().__init__(f"No vector index named '{name}' is installed. Installed: {listed}.",
                         f"没有名为「{name}」的向量索引。已安装：{listed}。")


def open_vector_index(engine: Engine, kind: str = "auto"):
    """The vector index named `kind` (the `vector_index` setting, env WENSHU_VECTOR_INDEX), from the
    `wenshu.vector_indexes` entry points: `auto` and `exact` are built in, a plugin may add its own."""
    factory = load_into(VECTOR_INDEXES, "vector_indexes").get(kind)
    if factory is None:
        raise UnknownVectorIndex(kind, sorted(VECTOR_INDEXES))
    return factory(engine)


class MemoryVectorIndex:
    """The same interface in process memory (tests, benchmarks, a store-less recall)."""

    kind = "memory"

    def __init__(self):
        self._rows: dict[str, dict[str, tuple[str, np.ndarray]]] = {}
        self._matrices: dict[str, tuple[list[str], np.ndarray]] = {}

    def upsert(self, datasource: str, ids: list[str], vectors: np.ndarray, hashes: list[str]) -> None:
        rows = self._rows.setdefault(datasource, {})
        for i, v, h in zip(ids, vectors, hashes, strict=True):
            rows[i] = (h, np.asarray(v, dtype=np.float32))
        self._matrices.pop(datasource, None)

    def hashes(self, datasource: str) -> dict[str, str]:
        return {i: h for i, (h, _) in self._rows.get(datasource, {}).items()}

    def delete(self, datasource: str, ids: list[str] | None = None) -> None:
        if ids is None:
            self._rows.pop(datasource, None)
        else:
            for i in ids:
                self._rows.get(datasource, {}).pop(i, None)
        self._matrices.pop(datasource, None)

    def describe(self) -> str:
        return "exact (numpy, in process memory)"

    def search(self, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        if datasource not in self._matrices:
            rows = self._rows.get(datasource, {})
            ids = sorted(rows)
            matrix = np.vstack([rows[i][1] for i in ids]) if ids else np.zeros((0, 1), np.float32)
            self._matrices[datasource] = (ids, matrix)
        ids, matrix = self._matrices[datasource]
        return top_k(matrix, ids, vector, k)
