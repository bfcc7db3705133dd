"""A vector index that searches in the database engine itself: sqlite-vec, pgvector.

`vector_items` (storage/schema.py) stays the source of truth: ids, content hashes and a copy of every
vector, written in the same transaction as the engine's own search table (the "mirror"). The mirror
tables are not migrations: they exist only where the extension does, so they are created on first
use, and on the first search of a datasource in a process they are reconciled with `vector_items`, so a
store filled by another index (the exact one: another Python, `WENSHU_VECTOR_INDEX=exact`) is picked
up without re-embedding.

An implementation says how to prepare a connection, and how to add, remove, list and search its
mirror's rows; upsert, delete, search and reconcile are the same for all of them.
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from wenshu.storage.vectors import CHUNK, TableVectorIndex, to_blob, vector_items

Row = tuple[str, str, bytes, int]  # doc id, content hash, float32 blob, dimension


class MirroredVectorIndex(TableVectorIndex):
    def __init__(self, engine: Engine):
        super().__init__(engine)
        self._in_step: set[str] = set()  # datasources whose mirror rows are known to match vector_items

    # -- what an implementation provides -----------------------------------------------------------
    def _prepare(self, conn: Connection) -> None:
        """Make the connection ready for the mirror (load an extension); the default does nothing."""

    def _mirror_remove(self, conn: Connection, datasource: str, ids: list[str] | None) -> None:
        """Remove these ids of the datasource (None: all of them)."""
        raise NotImplementedError

    def _mirror_add(self, conn: Connection, datasource: str, rows: list[Row]) -> None:
        raise NotImplementedError

    def _mirror_rows(self, conn: Connection, datasource: str) -> dict[str, tuple[str, int]]:
        """doc id -> (hash, dimension) for every mirrored row of the datasource."""
        raise NotImplementedError

    def _mirror_search(self, conn: Connection, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        """The k nearest of the datasource's rows of the vector's dimension, by cosine similarity, best first."""
        raise NotImplementedError

    # -- the interface -------------------------------------------------------------------------
    def upsert(self, datasource: str, ids: list[str], vectors: np.ndarray, hashes: list[str]) -> None:
        if not ids:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        dim = int(vectors.shape[1])
        with self.engine.begin() as conn:
            self._prepare(conn)
            self._upsert_rows(conn, datasource, ids, vectors, hashes)
            self._mirror_remove(conn, datasource, ids)
            self._mirror_add(conn, datasource, [(i, h, to_blob(v), dim) for i, v, h in zip(ids, vectors, hashes, strict=True)])

    def delete(self, datasource: str, ids: list[str] | None = None) -> None:
        with self.engine.begin() as conn:
            self._prepare(conn)
            self._delete_rows(conn, datasource, ids)
            self._mirror_remove(conn, datasource, ids)

    def search(self, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        vector = np.asarray(vector, dtype=np.float32)
        if k <= 0:
            return []
        if datasource not in self._in_step:
            self.reconcile(datasource)
        with self.engine.connect() as conn:
            self._prepare(conn)
            return self._mirror_search(conn, vector, int(k), datasource)

    def reconcile(self, datasource: str) -> dict:
        """Make the datasource's mirror rows match `vector_items`; returns how many were removed and added."""
        with self.engine.begin() as conn:
            self._prepare(conn)
            q = sa.select(vector_items.c.doc_id, vector_items.c.hash, vector_items.c.dim).where(
                vector_items.c.datasource == datasource)
            want = {i: (h, d) for i, h, d in conn.execute(q)}
            have = self._mirror_rows(conn, datasource)
            stale = [i for i, row in have.items() if want.get(i) != row]
            missing = [i for i in want if have.get(i) != want[i]]
            if stale:
                self._mirror_remove(conn, datasource, stale)
            for start in range(0, len(missing), CHUNK):
                q = sa.select(vector_items.c.doc_id, vector_items.c.hash, vector_items.c.vector, vector_items.c.dim).where(
                    vector_items.c.datasource == datasource, vector_items.c.doc_id.in_(missing[start : start + CHUNK]))
                self._mirror_add(conn, datasource, [tuple(r) for r in conn.execute(q)])
        self._in_step.add(datasource)
        return {"removed": len(stale), "added": len(missing)}
