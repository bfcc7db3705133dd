"""Learning from use: turns that needed a validation retry become *pending* few-shot pairs.

A turn whose first SQL was refused by validation (or needed a schema repair, `wenshu.sql.repair`)
and whose corrected SQL then ran and answered
(`status == "ok"`) teaches the library something: the (question, final SQL) pair is stored as
`pending` with its conversation id. Pending pairs are never served; only `wenshu examples approve ID`
(or the API) makes them `active`, so a bad answer or a hostile user cannot poison the library.
A thumbs-down on the turn (`reject_turn`) marks its learned pair `rejected`, and a rejected or
already-known question is never learned again.

Follow-up turns ("只看华东区") are not learned: their question means nothing without the turn before.
"""

from __future__ import annotations

from wenshu.errors import InputError, NotFound
from wenshu.guard import sqlglot_dialect
from wenshu.knowledge.examples import LibraryExamples
from wenshu.storage.examples_store import ExampleRecord, question_key


def needed_validation_retry(state: dict) -> bool:
    part = state.get("sql") or {}
    return bool(part.get("repairs")) or any(a.get("stage") == "validate" for a in part.get("attempts") or [])


def learnable(state: dict, status: str) -> bool:
    """True when the turn ended ok, with validated SQL that ran, after at least one validation retry."""
    part, result, query = state.get("sql") or {}, state.get("result") or {}, state.get("query") or {}
    return (
        status == "ok"
        and bool(part.get("sql"))
        and bool((part.get("validation") or {}).get("passed"))
        and not result.get("error")
        and not query.get("followup")
        and needed_validation_retry(state)
    )


def learn_from_turn(store, datasource: str, conversation_id: str, state: dict, status: str) -> ExampleRecord | None:
    """Store the turn's (question, final SQL) as a pending pair when it qualifies; returns the pair or None."""
    if not state or not learnable(state, status):
        return None
    question = state["query"]["question"]
    if store.examples.find(datasource, question) is not None:
        return None  # known already: active, pending, or rejected before
    dialect = sqlglot_dialect((state.get("schema") or {}).get("dialect")) or None
    try:
        return LibraryExamples(store.examples).add(
            datasource, question, state["sql"]["sql"], query_type=state["query"].get("query_type"),
            dialect=dialect, status="pending", source="learned", conversation_id=conversation_id)
    except InputError:  # a duplicate stored meanwhile, or SQL the example parser does not accept
        return None


def reject_turn(store, conversation_id: str, question: str | None = None) -> list[int]:
    """Mark the conversation's pending learned pairs rejected (only those for `question`, when given).

    Approved pairs stay: an administrator vetted them, and one user's verdict does not undo that.
    Returns the ids rejected.
    """
    key = question_key(question) if question else None
    rejected = []
    for e in store.examples.by_conversation(conversation_id):
        if e.source == "learned" and e.status == "pending" and (key is None or question_key(e.question) == key):
            store.examples.set_status(e.id, "rejected")
            rejected.append(e.id)
    return rejected


VERDICTS = ("up", "down")


def record_feedback(store, conversation_id: str, verdict: str, user_id: str | None = None) -> dict:
    """A user's verdict on the conversation's latest answer; "down" rejects the pair learned from that turn."""
    if verdict not in VERDICTS:
        raise InputError(f"Feedback must be one of {', '.join(VERDICTS)}, not '{verdict}'.",
                         f"反馈只能是 {'、'.join(VERDICTS)}，而不是「{verdict}」。", code="bad_feedback")
    if store.conversations.get(conversation_id, user_id=user_id) is None:
        raise NotFound(f"Conversation '{conversation_id}' was not found.", f"找不到会话「{conversation_id}」。",
                       code="conversation_not_found")
    questions = [m.content for m in store.conversations.messages(conversation_id) if m.role == "user"]
    rejected = reject_turn(store, conversation_id, questions[-1]) if verdict == "down" and questions else []
    return {"conversation_id": conversation_id, "verdict": verdict, "rejected_examples": rejected}
