"""The sqlite-vec vector index inside a SQLite app DB.

Loading the extension needs `Connection.enable_load_extension`, which many Python builds (pyenv's,
Debian's, most CI images) compile out of `sqlite3`. `sqlite_dbapi()` therefore picks the DBAPI
module SQLite app DBs are opened with (storage/db.py `make_engine`): the standard `sqlite3` when it
can load sqlite-vec, else `sqlean` (PyPI `sqlean.py`, a drop-in `sqlite3` with its own SQLite that
loads extensions), else the standard `sqlite3` with the exact index. Every connection to the app DB
in a process must come from one SQLite library: two copies (e.g. stdlib and sqlean) on the same file
do not see each other's POSIX locks, which can corrupt a WAL database. So the index never opens a
second engine; it loads the extension lazily on each pooled connection of the app engine it is given.

Vectors live in one `vec0` virtual table per dimension (`vec_index_<dim>`), partitioned by
datasource, cosine distance, with the doc id and content hash as auxiliary columns; a row's rowid is
a 63-bit hash of (datasource, doc id), so replacing or deleting a row is a point operation. The
`vec0` tables mirror `vector_items`, created on first use and reconciled with it
(storage/vectors_mirror.py).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from wenshu.storage.vectors import to_blob
from wenshu.storage.vectors_mirror import MirroredVectorIndex, Row

PREFIX = "vec_index_"
MAX_K = 4096  # sqlite-vec's limit on k
_LOADED = "wenshu_sqlite_vec"  # key in a pooled connection's info dict
# vec0 search is a brute-force scan of the partition's vectors: read through mmap it is about a third
# faster than through the page cache (21,000 x 512-d: p50 18 -> 12 ms on the dev machine).
MMAP_BYTES = 256 * 1024 * 1024


def _load(dbapi_conn) -> None:
    import sqlite_vec

    dbapi_conn.enable_load_extension(True)
    try:
        sqlite_vec.load(dbapi_conn)
    finally:
        dbapi_conn.enable_load_extension(False)


def _can_load(module) -> bool:
    try:
        conn = module.connect(":memory:")
        try:
            _load(conn)
            conn.execute("SELECT vec_version()")
        finally:
            conn.close()
    except (ImportError, AttributeError, module.Error):
        return False
    return True


@lru_cache(maxsize=1)
def sqlite_dbapi():
    """The `sqlite3`-compatible module for SQLite app DBs: one that loads sqlite-vec if there is one."""
    import sqlite3

    if _can_load(sqlite3):
        return sqlite3
    try:
        import sqlean
    except ImportError:
        return sqlite3
    return sqlean if _can_load(sqlean) else sqlite3


def sqlite_vec_available() -> bool:
    """Whether this Python can open SQLite connections that load sqlite-vec."""
    return _can_load(sqlite_dbapi())


def ensure_loaded(conn: Connection) -> str:
    """Load sqlite-vec on this pooled connection (once per DBAPI connection); returns its version."""
    version = conn.info.get(_LOADED)
    if version is None:
        _load(conn.connection.dbapi_connection)
        conn.exec_driver_sql(f"PRAGMA mmap_size={MMAP_BYTES}")
        version = conn.info[_LOADED] = conn.exec_driver_sql("SELECT vec_version()").scalar()
    return version


def engine_loads_sqlite_vec(engine: Engine) -> bool:
    if engine.dialect.name != "sqlite":
        return False
    dbapi = engine.dialect.loaded_dbapi
    try:
        with engine.connect() as conn:
            ensure_loaded(conn)
    except (ImportError, AttributeError, sa.exc.DBAPIError, dbapi.Error):
        return False
    return True


def _rowid(datasource: str, doc_id: str) -> int:
    digest = hashlib.blake2b(f"{datasource}\x00{doc_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # 63 bits: a positive SQLite integer


class SqliteVecIndex(MirroredVectorIndex):
    kind = "sqlite-vec"

    def describe(self) -> str:
        with self.engine.connect() as conn:
            version = ensure_loaded(conn)
        module = self.engine.dialect.loaded_dbapi
        return f"sqlite-vec {version} in the app DB ({module.__name__}, SQLite {module.sqlite_version})"

    @staticmethod
    def _create(conn: Connection, dim: int) -> str:
        name = f"{PREFIX}{int(dim)}"
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING vec0(datasource text partition key, "
            f"embedding float[{int(dim)}] distance_metric=cosine, +doc_id text, +hash text)")
        return name

    @staticmethod
    def _dims(conn: Connection) -> list[int]:
        rows = conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?", (PREFIX + "%",)).all()
        parts = [r[0][len(PREFIX):].split("_")[0] for r in rows]
        return sorted({int(p) for p in parts if p.isdigit()})

    # -- the mirror (storage/vectors_mirror.py) ---------------------------------------------------
    def _prepare(self, conn: Connection) -> None:
        ensure_loaded(conn)

    def _mirror_remove(self, conn: Connection, datasource: str, ids: list[str] | None) -> None:
        for dim in self._dims(conn):
            if ids is None:
                conn.exec_driver_sql(f"DELETE FROM {PREFIX}{dim} WHERE datasource = ?", (datasource,))
            else:
                conn.exec_driver_sql(f"DELETE FROM {PREFIX}{dim} WHERE rowid = ?", [(_rowid(datasource, i),) for i in ids])

    def _mirror_add(self, conn: Connection, datasource: str, rows: list[Row]) -> None:
        for dim in sorted({r[3] for r in rows}):
            name = self._create(conn, dim)
            conn.exec_driver_sql(
                f"INSERT INTO {name} (rowid, datasource, embedding, doc_id, hash) VALUES (?, ?, ?, ?, ?)",
                [(_rowid(datasource, i), datasource, blob, i, h) for i, h, blob, d in rows if d == dim])

    def _mirror_rows(self, conn: Connection, datasource: str) -> dict[str, tuple[str, int]]:
        have: dict[str, tuple[str, int]] = {}
        for dim in self._dims(conn):
            sql = f"SELECT doc_id, hash FROM {PREFIX}{dim} WHERE datasource = ?"
            have.update({i: (h, dim) for i, h in conn.exec_driver_sql(sql, (datasource,))})
        return have

    def _mirror_search(self, conn: Connection, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]:
        dim = int(vector.shape[0])
        if dim not in self._dims(conn):
            return []
        rows = conn.exec_driver_sql(
            f"SELECT doc_id, distance FROM {PREFIX}{dim} WHERE embedding MATCH ? AND k = ? AND datasource = ? "
            "ORDER BY distance", (to_blob(vector), min(k, MAX_K), datasource)).all()
        return [(doc_id, 1.0 - float(dist)) for doc_id, dist in rows]
