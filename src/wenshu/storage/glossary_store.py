"""The business glossary in the app store: terms and topics per datasource.

A `term` has a definition and usually a SQL snippet ("GMV" -> `SUM(orders.pay_amount)` of paid
orders); a `topic` maps a business subject to a set of tables ("高价值用户" -> customers, orders).
Both carry synonyms. Term names are unique per datasource, case-insensitively.
Matching terms in questions belongs to `wenshu.knowledge.glossary`; this is storage only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.errors import DuplicateEntry, InputError, NotFound
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import glossary_terms as t

KINDS = ("term", "topic")


@dataclass(frozen=True)
class GlossaryRecord:
    id: int
    datasource: str
    term: str
    kind: str
    definition: str
    sql: str | None
    synonyms: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    created_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["created_at"] = self.created_at.isoformat() if self.created_at else None
        return d


def _clean_list(items) -> list[str]:
    out: list[str] = []
    for item in items or []:
        text = str(item).strip()
        if text and text.casefold() not in {o.casefold() for o in out}:
            out.append(text)
    return out


def _values(term: str, kind: str, definition: str, sql: str | None, synonyms, tables) -> dict[str, Any]:
    term, definition = (term or "").strip(), (definition or "").strip()
    if not term or not definition:
        raise InputError("A glossary entry needs a term and a definition.", "术语条目需要名称和定义。",
                         code="bad_glossary_term")
    if kind not in KINDS:
        raise InputError(f"Unknown glossary kind '{kind}' (use term or topic).",
                         f"未知的术语类型「{kind}」（可用 term 或 topic）。", code="bad_glossary_term")
    return dict(term=term, kind=kind, definition=definition, sql=(sql or "").strip() or None,
                synonyms=_clean_list(synonyms), tables=_clean_list(tables))


def _not_found(datasource: str, term: str) -> NotFound:
    return NotFound(f"Datasource '{datasource}' has no glossary term '{term}'.",
                    f"数据源「{datasource}」的术语表中没有「{term}」。", code="glossary_term_not_found")


class Glossary:
    def __init__(self, engine: Engine):
        self.engine = engine

    def add(self, datasource: str, term: str, definition: str, *, kind: str = "term", sql: str | None = None,
            synonyms=(), tables=()) -> GlossaryRecord:
        values = _values(term, kind, definition, sql, synonyms, tables)
        if self.get(datasource, values["term"]) is not None:
            raise DuplicateEntry(f"Datasource '{datasource}' already defines '{values['term']}'.",
                                 f"数据源「{datasource}」已定义「{values['term']}」。")
        with self.engine.begin() as conn:
            conn.execute(t.insert().values(datasource=datasource, created_at=utcnow(), **values))
        return self.get(datasource, values["term"])

    def put(self, datasource: str, term: str, definition: str, *, kind: str = "term", sql: str | None = None,
            synonyms=(), tables=()) -> tuple[GlossaryRecord, bool]:
        """Insert or replace a term; returns (record, created)."""
        values = _values(term, kind, definition, sql, synonyms, tables)
        old = self.get(datasource, values["term"])
        if old is None:
            return self.add(datasource, **values), True
        with self.engine.begin() as conn:
            conn.execute(t.update().where(t.c.id == old.id).values(**values))
        return self.get(datasource, values["term"]), False

    def get(self, datasource: str, term: str) -> GlossaryRecord | None:
        """The entry named `term` (case-insensitive), or None."""
        key = term.strip().casefold()
        return next((r for r in self.list(datasource) if r.term.casefold() == key), None)

    def list(self, datasource: str | None = None) -> list[GlossaryRecord]:
        stmt = sa.select(t).order_by(t.c.datasource, t.c.id)
        if datasource is not None:
            stmt = stmt.where(t.c.datasource == datasource)
        with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(stmt)]
        return [GlossaryRecord(**{**r, "synonyms": r["synonyms"] or [], "tables": r["tables"] or []}) for r in rows]

    def stamp(self, datasource: str) -> str:
        """A short hash of the datasource's terms as they are now: any add, edit or removal changes it (the answer
        cache keys on it, so an answer the glossary shaped is not served after the glossary changed)."""
        stmt = sa.select(t.c.id, t.c.term, t.c.kind, t.c.definition, t.c.sql, t.c.synonyms, t.c.tables) \
            .where(t.c.datasource == datasource).order_by(t.c.id)
        with self.engine.connect() as conn:
            rows = [list(r) for r in conn.execute(stmt)]
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False, default=str).encode()).hexdigest()[:16]

    def count(self, datasource: str | None = None) -> int:
        stmt = sa.select(sa.func.count()).select_from(t)
        if datasource is not None:
            stmt = stmt.where(t.c.datasource == datasource)
        with self.engine.connect() as conn:
            return conn.execute(stmt).scalar_one()

    def remove(self, datasource: str, term: str) -> None:
        record = self.get(datasource, term)
        if record is None:
            raise _not_found(datasource, term)
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(t.c.id == record.id))
