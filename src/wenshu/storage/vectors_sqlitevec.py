"""The sqlite-vec vector index inside a SQLite app DB.

The extension is loaded on every connection of the index's own engine (same database file as the app
store). Vectors live in one `vec0` virtual table per dimension, partitioned by datasource, with cosine
distance; `vector_items` keeps the ids and content hashes (and a copy of the vector, so a later switch to
the exact index needs no re-embedding).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.storage.vectors import TableVectorIndex, to_blob


@lru_cache(maxsize=1)
def sqlite_vec_available() -> bool:
    """Whether this Python's sqlite3 can load extensions and the sqlite-vec package is installed."""
    import sqlite3

    try:
        import sqlite_vec

        conn = sqlite3.connect(":memory:")
        try:
            conn.enable_load_extension(True)
            sqlite_vec.load(conn)
            conn.execute("SELECT vec_version()")
        finally:
            conn.close()
    except (ImportError, AttributeError, sqlite3.Error):
        return False
    return True


def _vec_engine(engine: Engine) -> Engine:
    import sqlite_vec

    from wenshu.storage.db import make_engine

    vec_engine = make_engine(engine.url.render_as_string(hide_password=False))

    @sa.event.listens_for(vec_engine, "connect")
    def _load(dbapi_conn, _record):  # pragma: no cover - runs only where extensions load
        dbapi_conn.enable_load_extension(True)
        sqlite_vec.load(dbapi_conn)
        dbapi_conn.enable_load_extension(False)

    return vec_engine


class SqliteVecIndex(TableVectorIndex):
    def __init__(self, engine: Engine):
        super().__init__(_vec_engine(engine))
        self._dims: set[int] = set()

    def _table(self, conn, dim: int) -> str:
        name = f"vec_items_{dim}"
        if dim not in self._dims:
            conn.exec_driver_sql(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING vec0("
                f"datasource text partition key, embedding float[{dim}] distance_metric=cosine, +doc_id text)")
            self._dims.add(dim)
        return name

    def upsert(self, datasource: str, ids: list[str], vectors: np.ndarray, hashes: list[str]) -> None:
        if not ids:
            return
        with self.engine.begin() as conn:
            self._upsert_rows(conn, datasource, ids, vectors, hashes)
            name = self._table(conn, int(vectors.shape[1]))
            for i in ids:
                conn.exec_driver_sql(f"DELETE FROM {name} WHERE datasource = ? AND doc_id = ?", (datasource, i))
            conn.exec_driver_sql(
                f"INSERT INTO {name} (datasource, embedding, doc_id) VALUES (?, ?, ?)",
                [(datasource, to_blob(v), i) for i, v in zip(ids, vectors, strict=True)])

    def delete(self, datasource: str, ids: list[str] | None = None) -> None:
        with self.engine.begin() as conn:
            self._delete_rows(conn, datasource, ids)
            for dim in self._known_dims(conn):
                name = self._table(conn, dim)
                if ids is None:
                    conn.exec_driver_sql(f"DELETE FROM {name} WHERE datasource = ?", (datasource,))
                else:
                    for i in ids:
                        conn.exec_driver_sql(f"DELETE FROM {name} WHERE datasource = ? AND doc_id = ?", (datasource, i))

    def _known_dims(self, conn) -> list[int]:
        rows = conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vec_items_%'").all()
        return sorted({int(r[0].split("_")[2]) for r in rows if r[0].split("_")[2].isdigit()})

    def search(self, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        vector = np.asarray(vector, dtype=np.float32)
        if k <= 0:
            return []
        with self.engine.connect() as conn:
            if int(vector.shape[0]) not in self._known_dims(conn):
                return []
            name = self._table(conn, int(vector.shape[0]))
            rows = conn.exec_driver_sql(
                f"SELECT doc_id, distance FROM {name} WHERE embedding MATCH ? AND k = ? AND datasource = ? "
                "ORDER BY distance", (to_blob(vector), int(k), datasource)).all()
        return [(doc_id, 1.0 - float(dist)) for doc_id, dist in rows]
