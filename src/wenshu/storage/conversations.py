"""Conversations and their messages, scoped by user.

A conversation's title is set from the first assistant message that finds it empty: the first
50 characters of the answer, or of the question when the answer is blank.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from wenshu.errors import NotFound
from wenshu.storage.schema import conversations as ct
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import messages as mt

ROLES = ("user", "assistant")
STATUSES = ("ok", "error", "stopped", "fallback")
TITLE_LEN = 50

Role = Literal["user", "assistant"]
Status = Literal["ok", "error", "stopped", "fallback"]

# The statements of every turn, built once and bound when they run: building a statement costs SQLAlchemy
# more than running it on SQLite (about half of a cached answer's storage time went to building them).
_GET = sa.select(ct).where(ct.c.id == sa.bindparam("cid"))
_GET_OWNED = _GET.where(ct.c.user_id == sa.bindparam("uid"))
_TOUCH = ct.update().where(ct.c.id == sa.bindparam("cid")).values(updated_at=sa.bindparam("now"))
_TITLE = sa.select(ct.c.title).where(ct.c.id == sa.bindparam("cid"))
_SET_TITLE = ct.update().where(ct.c.id == sa.bindparam("cid")).values(title=sa.bindparam("new_title"))
_ANY_MESSAGE = sa.select(mt.c.id).where(mt.c.conversation_id == sa.bindparam("cid")).limit(1)


@dataclass(frozen=True)
class ConversationRecord:
    id: str
    user_id: str
    title: str | None
    datasource: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class MessageRecord:
    id: int
    conversation_id: str
    role: str
    content: str
    sql: str | None
    result_summary: str | None
    status: str
    created_at: datetime
    payload: Any


@dataclass(frozen=True)
class Turn:
    """One question and the assistant reply that followed it."""

    question: str
    sql: str | None
    summary: str | None  # the reply's result_summary, else its text


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def make_title(text: str | None) -> str:
    """An automatic title: the text with whitespace collapsed, cut to 50 characters."""
    return _clean(text)[:TITLE_LEN]


def _not_found(conversation_id: str) -> NotFound:
    return NotFound(
        f"There is no conversation '{conversation_id}'.",
        f"会话「{conversation_id}」不存在。",
        code="conversation_not_found",
    )


class Conversations:
    def __init__(self, engine: Engine):
        self.engine = engine

    @staticmethod
    def _scope(stmt, conversation_id: str, user_id: str | None):
        stmt = stmt.where(ct.c.id == conversation_id)
        return stmt if user_id is None else stmt.where(ct.c.user_id == user_id)

    def create(
        self, user_id: str, datasource: str | None, title: str | None = None, conversation_id: str | None = None
    ) -> str:
        """A new conversation; a client may choose its id (e.g. the OpenAI `user` field)."""
        cid = conversation_id or uuid.uuid4().hex
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(ct.insert(), {"id": cid, "user_id": user_id, "title": _clean(title) or None,
                                       "datasource": datasource, "created_at": now, "updated_at": now})
        return cid

    def get(self, conversation_id: str, user_id: str | None = None) -> ConversationRecord | None:
        """The conversation, or None when missing or owned by another user."""
        stmt, params = (_GET, {"cid": conversation_id}) if user_id is None else \
            (_GET_OWNED, {"cid": conversation_id, "uid": user_id})
        with self.engine.connect() as conn:
            row = conn.execute(stmt, params).first()
        return None if row is None else ConversationRecord(**row._mapping)

    def list(self, user_id: str, limit: int = 50) -> list[ConversationRecord]:
        """The user's conversations, most recently active first."""
        stmt = (
            sa.select(ct)
            .where(ct.c.user_id == user_id)
            .order_by(ct.c.updated_at.desc(), ct.c.created_at.desc(), ct.c.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [ConversationRecord(**r._mapping) for r in conn.execute(stmt)]

    def rename(self, conversation_id: str, title: str, user_id: str | None = None) -> bool:
        """Set the title (whitespace collapsed; blank clears it). False when not found."""
        stmt = self._scope(ct.update(), conversation_id, user_id).values(
            title=_clean(title) or None
        )
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount > 0

    def delete(self, conversation_id: str, user_id: str | None = None) -> bool:
        """Delete the conversation and (by cascade) its messages. False when not found."""
        with self.engine.begin() as conn:
            return conn.execute(self._scope(ct.delete(), conversation_id, user_id)).rowcount > 0

    def add_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        *,
        sql: str | None = None,
        result_summary: str | None = None,
        status: Status = "ok",
        payload: Any = None,
    ) -> int:
        """Append a message, touch the conversation and maybe title it; returns the message id."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {role!r}")
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {status!r}")
        with self.engine.begin() as conn:
            return self._append(conn, conversation_id, [(role, {"content": content, "sql": sql, "status": status,
                                                                 "result_summary": result_summary,
                                                                 "payload": payload})])

    def add_exchange(self, conversation_id: str, question: str, answer: str, *, also: Callable[[Connection], Any],
                     **reply: Any) -> int:
        """A question and its reply (`reply`: add_message's keywords) appended in one transaction, with `also(conn)`
        (the turn's audit entry) in it too: a turn with nothing to wait for between them (a cached answer).
        Stored exactly as two add_message calls would store them; returns the reply's id."""
        if reply.get("status", "ok") not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {reply['status']!r}")
        with self.engine.begin() as conn:
            mid = self._append(conn, conversation_id, [("user", {"content": question}),
                                                       ("assistant", {"content": answer, **reply})])
            also(conn)
        return mid

    def _append(self, conn: Connection, conversation_id: str, messages: list[tuple[str, dict[str, Any]]]) -> int:
        """Touch the conversation, insert the messages (role, columns) and title it after an assistant message;
        the last message's id."""
        now = utcnow()
        # Write first: it takes the write lock and tells us whether the conversation exists.
        if not conn.execute(_TOUCH, {"cid": conversation_id, "now": now}).rowcount:
            raise _not_found(conversation_id)
        for role, fields in messages:
            row = {"sql": None, "result_summary": None, "status": "ok", "payload": None} | fields
            mid = conn.execute(mt.insert(), row | {"conversation_id": conversation_id, "role": role,
                                                  "content": fields.get("content") or "", "created_at": now},
                               ).inserted_primary_key[0]
            if role == "assistant":
                self._maybe_title(conn, conversation_id, mid, fields.get("content"))
        return mid

    @staticmethod
    def _maybe_title(conn: Connection, conversation_id: str, mid: int, answer: str) -> None:
        title = conn.execute(_TITLE, {"cid": conversation_id}).scalar()
        if title:
            return
        new = make_title(answer)
        if not new:
            question = conn.execute(
                sa.select(mt.c.content)
                .where(mt.c.conversation_id == conversation_id, mt.c.role == "user", mt.c.id < mid)
                .order_by(mt.c.id.desc())
                .limit(1)
            ).scalar()
            new = make_title(question)
        if new:
            conn.execute(_SET_TITLE, {"cid": conversation_id, "new_title": new})

    def messages(self, conversation_id: str) -> list[MessageRecord]:
        """All messages of the conversation, oldest first."""
        stmt = sa.select(mt).where(mt.c.conversation_id == conversation_id).order_by(mt.c.id)
        with self.engine.connect() as conn:
            return [MessageRecord(**r._mapping) for r in conn.execute(stmt)]

    def has_messages(self, conversation_id: str) -> bool:
        """Whether anything was said in the conversation yet (False for an unknown one)."""
        with self.engine.connect() as conn:
            return conn.execute(_ANY_MESSAGE, {"cid": conversation_id}).first() is not None

    def recent_turns(self, conversation_id: str, n: int) -> list[Turn]:
        """The last `n` answered questions, oldest first.

        A user message is paired with the assistant message right after it; a question with no
        reply (still running, or followed by another question) is left out.
        """
        if n <= 0:
            return []
        stmt = (
            sa.select(mt.c.role, mt.c.content, mt.c.sql, mt.c.result_summary)
            .where(mt.c.conversation_id == conversation_id)
            .order_by(mt.c.id)
        )
        turns: list[Turn] = []
        question: str | None = None
        with self.engine.connect() as conn:
            for role, content, sql, summary in conn.execute(stmt):
                if role == "user":
                    question = content
                elif question is not None:
                    turns.append(Turn(question, sql, summary or content or None))
                    question = None
        return turns[-n:]
