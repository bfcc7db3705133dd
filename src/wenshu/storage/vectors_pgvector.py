"""The pgvector vector index inside a PostgreSQL app DB.

Vectors are mirrored from `vector_items` (storage/vectors_mirror.py) into one table,
`pgvector_items`: (datasource, doc id) as the key, the content hash, the dimension and a `vector`
column without a fixed dimension, so one table serves every embedder. Search is exact: the
datasource's rows of the query's dimension ordered by cosine distance (`<=>`), which reads them
through the primary key's datasource prefix. A few thousand documents per datasource take
milliseconds; an approximate (HNSW) index would need a fixed dimension and can return fewer than k
rows under a filter, so there is none yet.

The server needs the extension (Debian: `postgresql-NN-pgvector`, or scripts/build-pgvector.sh) and
`CREATE EXTENSION vector` once per database, which needs a superuser unless it was done already:
`open_pgvector` says so and the `auto` index falls back to the exact one (storage/vectors.py).
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from pgvector.sqlalchemy import VECTOR
from sqlalchemy.engine import Connection, Engine

from wenshu.storage.schema import NAME_LEN
from wenshu.storage.vectors import CHUNK, delete_rows, from_blob
from wenshu.storage.vectors_mirror import MirroredVectorIndex, Row

# Created on first use, not by the migrations: it exists only where the extension does.
items = sa.Table(
    "pgvector_items",
    sa.MetaData(),
    sa.Column("datasource", sa.String(NAME_LEN), primary_key=True),
    sa.Column("doc_id", sa.String(512), primary_key=True),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.Column("dim", sa.Integer, nullable=False),
    sa.Column("embedding", VECTOR(), nullable=False),
)
_LOCK_ID = 0x77656E73687576  # advisory lock while the extension and table are created ("wenshuv")


class PgVectorUnavailable(Exception):
    """The server lacks the extension, or this role may not create it."""


def ensure_pgvector(engine: Engine) -> str:
    """Create the extension and the table if needed (under a lock: two processes may start at once);
    returns the extension's version."""
    try:
        with engine.begin() as conn:
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_LOCK_ID)))
            conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
            items.create(conn, checkfirst=True)
            return conn.exec_driver_sql("SELECT extversion FROM pg_extension WHERE extname = 'vector'").scalar()
    except sa.exc.DBAPIError as exc:
        raise PgVectorUnavailable(str(exc.orig).strip().splitlines()[0]) from exc


class PgVectorIndex(MirroredVectorIndex):
    kind = "pgvector"

    def __init__(self, engine: Engine):
        self.version = ensure_pgvector(engine)
        super().__init__(engine)

    def describe(self) -> str:
        return f"pgvector {self.version} in the app DB (PostgreSQL)"

    # -- the mirror (storage/vectors_mirror.py) ---------------------------------------------------
    def _mirror_remove(self, conn: Connection, datasource: str, ids: list[str] | None) -> None:
        delete_rows(conn, items, datasource, ids)

    def _mirror_add(self, conn: Connection, datasource: str, rows: list[Row]) -> None:
        values = [{"datasource": datasource, "doc_id": i, "hash": h, "dim": d, "embedding": from_blob(blob)}
                  for i, h, blob, d in rows]
        for start in range(0, len(values), CHUNK):
            conn.execute(items.insert(), values[start : start + CHUNK])

    def _mirror_rows(self, conn: Connection, datasource: str) -> dict[str, tuple[str, int]]:
        q = sa.select(items.c.doc_id, items.c.hash, items.c.dim).where(items.c.datasource == datasource)
        return {i: (h, d) for i, h, d in conn.execute(q)}

    def _mirror_search(self, conn: Connection, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        distance = items.c.embedding.cosine_distance(vector)
        q = (sa.select(items.c.doc_id, distance).where(items.c.datasource == datasource,
                                                       items.c.dim == int(vector.shape[0]))
             .order_by(distance, items.c.doc_id).limit(k))
        return [(doc_id, 1.0 - float(dist)) for doc_id, dist in conn.execute(q)]
