"""The query result cache, keyed by datasource + normalized SQL + data version.

`data_version` is whatever the caller uses to notice that the data changed (a file mtime, a
max(updated_at), a manual counter); a new version simply produces new keys, and old entries age
out through `evict_older_than`.

The answer cache (agent/answer_cache.py) keeps its entries here too, under keys of its own: a one-row
"result" whose only cell is the stored answer, read with `max_age_s` and dropped with `forget`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from wenshu.storage.columns import utcnow
from wenshu.storage.schema import result_cache as t

# A read counts its hit and returns the entry in one statement (UPDATE .. RETURNING: SQLite 3.35+, PostgreSQL),
# built once and bound when it runs.
_HIT = t.update().where(t.c.key == sa.bindparam("k")).values(hits=t.c.hits + 1).returning(*t.c)
_HIT_SINCE = (t.update().where(t.c.key == sa.bindparam("k"), t.c.created_at >= sa.bindparam("since"))
              .values(hits=t.c.hits + 1).returning(*t.c))

# Segments whose text must be kept exactly: string literals ('it''s', E'..', N'..'), quoted
# identifiers ("Name", `name`, [name]), PostgreSQL $tag$ strings and comments. Everything else is
# case-folded and has its whitespace collapsed. An unterminated quote runs to the end.
_QUOTED = re.compile(
    r"""
      '(?:[^']|'')*(?:'|\Z)
    | "(?:[^"]|"")*(?:"|\Z)
    | `(?:[^`]|``)*(?:`|\Z)
    | \[[^\]]*(?:\]|\Z)
    | --[^\n]*(?:\n|\Z)
    | /\*.*?(?:\*/|\Z)
    | \$([A-Za-z_]\w*|)\$.*?(?:\$\1\$|\Z)
    """,
    re.VERBOSE | re.DOTALL,
)


def normalize_sql(sql: str) -> str:
    """SQL text with keyword case and layout ignored, literals and quoted names kept as is.

    Unquoted text (keywords, functions, plain identifiers) is ASCII lower-cased, runs of whitespace
    become one space, and trailing semicolons are dropped. Backslash escapes are read
    differently by different engines, so everything from the first string literal holding a
    backslash onwards is kept verbatim: a missed cache hit, never a wrong one.
    """
    parts: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(sql):
        parts.append(_plain(sql[pos : m.start()]))
        if m.group().startswith("'") and "\\" in m.group():
            parts.append(sql[m.start() :])
            break
        parts.append(m.group())
        pos = m.end()
    else:
        # Only a plain tail is trimmed, so a literal's own text is never touched.
        tail = _plain(sql[pos:]).rstrip()
        while tail.endswith(";"):
            tail = tail[:-1].rstrip()
        parts.append(tail)
    return "".join(parts).lstrip()


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _plain(segment: str) -> str:
    # ASCII only: SQL keywords are ASCII, and engines fold only ASCII in unquoted names.
    return re.sub(r"\s+", " ", segment.translate(_ASCII_LOWER))


def make_key(datasource: str, sql: str, data_version: Any) -> str:
    """sha256 hex of (datasource, normalized SQL, data version)."""
    payload = json.dumps([datasource, normalize_sql(sql), str(data_version)], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResult:
    key: str
    datasource: str
    sql: str
    data_version: str
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    created_at: datetime
    hits: int


class CacheWrites:
    """`put` for every result cache (this table, the Redis twin in storage/cache_redis.py): the arguments made
    plain (a tuple row becomes a list, the version text), then the twin's own `_store`."""

    make_key = staticmethod(make_key)

    def put(
        self,
        key: str,
        *,
        datasource: str,
        sql: str,
        data_version: Any,
        columns: list[str],
        rows: list[list[Any]],
        row_count: int | None = None,
        truncated: bool = False,
        ttl_s: float | None = None,
    ) -> None:
        """Store (or replace) a result; hits restart at 0. `ttl_s`: how long Redis keeps this entry (default the
        cache's own TTL); the table keeps every entry until evicted, readers pass `max_age_s`."""
        self._store(key, dict(
            datasource=datasource,
            sql=sql,
            data_version=str(data_version),
            columns=list(columns),
            rows=[list(r) for r in rows],
            row_count=len(rows) if row_count is None else row_count,
            truncated=bool(truncated),
        ), ttl_s)

    def _store(self, key: str, entry: dict[str, Any], ttl_s: float | None = None) -> None:
        raise NotImplementedError


class ResultCache(CacheWrites):
    def __init__(self, engine: Engine):
        self.engine = engine

    def get(self, key: str, max_age_s: float | None = None) -> CachedResult | None:
        """The cached result (counting the hit), or None; entries older than max_age_s miss."""
        if max_age_s is None:
            stmt, params = _HIT, {"k": key}
        else:
            stmt, params = _HIT_SINCE, {"k": key, "since": utcnow() - timedelta(seconds=max_age_s)}
        with self.engine.begin() as conn:
            row = conn.execute(stmt, params).first()
        return None if row is None else CachedResult(**row._mapping)

    def _store(self, key: str, entry: dict[str, Any], ttl_s: float | None = None) -> None:
        try:
            with self.engine.begin() as conn:
                conn.execute(t.delete().where(t.c.key == key))
                conn.execute(t.insert().values(key=key, created_at=utcnow(), hits=0, **entry))
        except IntegrityError:
            pass  # a concurrent writer stored the same key first; its result is as good

    def forget(self, key: str) -> bool:
        """Delete one entry; whether there was one."""
        with self.engine.begin() as conn:
            return bool(conn.execute(t.delete().where(t.c.key == key)).rowcount)

    def evict_older_than(self, seconds: float) -> int:
        """Delete entries created more than `seconds` ago; returns how many."""
        cutoff = utcnow() - timedelta(seconds=seconds)
        with self.engine.begin() as conn:
            return conn.execute(t.delete().where(t.c.created_at < cutoff)).rowcount

    def clear(self, datasource: str | None = None) -> int:
        """Delete every entry (of one datasource); returns how many."""
        stmt = t.delete() if datasource is None else t.delete().where(t.c.datasource == datasource)
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount
