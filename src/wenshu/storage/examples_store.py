"""The few-shot library in the app store: question <-> SQL pairs per datasource.

Each pair has a status (`active` pairs are served to the model; `pending` pairs wait for approval;
`rejected` pairs are kept so the same pair is not learned again) and a source (`bundled` from a
shipped YAML file, `user` added by hand, `learned` from a turn that succeeded after a retry).
Computing skeletons and checking SQL belong to `wenshu.knowledge.examples`; this is storage only.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.errors import DuplicateEntry, InputError, NotFound
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import examples as t

STATUSES = ("active", "pending", "rejected")
SOURCES = ("bundled", "user", "learned")
_TRAILING = re.compile(r"[\s?？。.!！]+$")


def question_key(question: str) -> str:
    """Questions that differ only in case, spacing or final punctuation are the same question."""
    return _TRAILING.sub("", " ".join(question.split()).casefold())


@dataclass(frozen=True)
class ExampleRecord:
    id: int
    datasource: str
    question: str
    sql: str
    query_type: str | None
    skeleton: str | None
    status: str
    source: str
    conversation_id: str | None
    created_at: datetime
    approved_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["created_at"] = self.created_at.isoformat()
        d["approved_at"] = self.approved_at.isoformat() if self.approved_at else None
        return d


def _not_found(example_id: int) -> NotFound:
    return NotFound(f"There is no example with id {example_id}.", f"没有编号为 {example_id} 的示例。",
                    code="example_not_found")


def _check_status(status: str) -> None:
    if status not in STATUSES:
        raise InputError(f"Unknown example status '{status}' (use {', '.join(STATUSES)}).",
                         f"未知的示例状态「{status}」（可用：{', '.join(STATUSES)}）。", code="bad_status")


class Examples:
    def __init__(self, engine: Engine):
        self.engine = engine

    def add(self, datasource: str, question: str, sql: str, *, query_type: str | None = None,
            skeleton: str | None = None, status: str = "active", source: str = "user",
            conversation_id: str | None = None) -> ExampleRecord:
        """Insert a pair; a pair whose question the datasource already holds raises DuplicateEntry."""
        _check_status(status)
        question, sql = question.strip(), sql.strip()
        if not question or not sql:
            raise InputError("An example needs a question and its SQL.", "示例需要问题和对应的 SQL。",
                             code="bad_example")
        existing = self.find(datasource, question)
        if existing is not None:
            raise DuplicateEntry(
                f"Datasource '{datasource}' already has this question as example {existing.id} ({existing.status}).",
                f"数据源「{datasource}」已有这个问题，示例编号 {existing.id}（{existing.status}）。")
        now = utcnow()
        values = dict(datasource=datasource, question=question, sql=sql, query_type=query_type,
                      skeleton=skeleton, status=status, source=source, conversation_id=conversation_id,
                      created_at=now, approved_at=now if status == "active" else None)
        with self.engine.begin() as conn:
            new_id = conn.execute(t.insert().values(**values)).inserted_primary_key[0]
        return self.get(new_id)

    def get(self, example_id: int) -> ExampleRecord:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(t).where(t.c.id == example_id)).first()
        if row is None:
            raise _not_found(example_id)
        return ExampleRecord(**row._mapping)

    def list(self, datasource: str | None = None, status: str | None = None) -> list[ExampleRecord]:
        """Pairs in insertion order; `status=None` or "all" means every status."""
        stmt = sa.select(t).order_by(t.c.id)
        if datasource is not None:
            stmt = stmt.where(t.c.datasource == datasource)
        if status not in (None, "all"):
            _check_status(status)
            stmt = stmt.where(t.c.status == status)
        with self.engine.connect() as conn:
            return [ExampleRecord(**r._mapping) for r in conn.execute(stmt)]

    def find(self, datasource: str, question: str) -> ExampleRecord | None:
        key = question_key(question)
        return next((e for e in self.list(datasource) if question_key(e.question) == key), None)

    def count(self, datasource: str | None = None) -> int:
        stmt = sa.select(sa.func.count()).select_from(t)
        if datasource is not None:
            stmt = stmt.where(t.c.datasource == datasource)
        with self.engine.connect() as conn:
            return conn.execute(stmt).scalar_one()

    def stamp(self, datasource: str) -> str:
        """What changes when the datasource's active pairs change (one added, approved, held, rejected or
        removed): their count, largest id, id sum and latest approval. The answer cache keys on it."""
        active = sa.and_(t.c.datasource == datasource, t.c.status == "active")
        stmt = sa.select(sa.func.count(), sa.func.max(t.c.id), sa.func.sum(t.c.id), sa.func.max(t.c.approved_at)) \
            .where(active)
        with self.engine.connect() as conn:
            return "/".join(str(v) for v in conn.execute(stmt).one())

    def set_status(self, example_id: int, status: str) -> ExampleRecord:
        """Approve (`active`), hold (`pending`) or reject a pair."""
        _check_status(status)
        values: dict[str, Any] = {"status": status}
        values["approved_at"] = utcnow() if status == "active" else None
        with self.engine.begin() as conn:
            done = conn.execute(t.update().where(t.c.id == example_id).values(**values)).rowcount
        if not done:
            raise _not_found(example_id)
        return self.get(example_id)

    def by_conversation(self, conversation_id: str) -> list[ExampleRecord]:
        stmt = sa.select(t).where(t.c.conversation_id == conversation_id).order_by(t.c.id)
        with self.engine.connect() as conn:
            return [ExampleRecord(**r._mapping) for r in conn.execute(stmt)]

    def remove(self, example_id: int) -> None:
        with self.engine.begin() as conn:
            if not conn.execute(t.delete().where(t.c.id == example_id)).rowcount:
                raise _not_found(example_id)
