"""What a turn leaves behind, outside the graph: its place in a conversation and its audit record.

`Agent.ask` opens a turn with `Conversations` (who may continue a conversation; the user's message
stored), runs the graph, closes the turn with the answer, and hands it to the `AuditHook` (who asked
what, the SQL that ran, how it went and how long each step took), whether it answered, failed or was
stopped. Nothing in the graph writes messages or audit records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from wenshu.contracts import AgentRequest, AgentResponse
from wenshu.errors import NotFound


class Conversations:
    def __init__(self, store):
        self.repo = store.conversations

    def open_turn(self, request: AgentRequest, datasource: str, question: str, *, store_question: bool = True) -> str:
        """The conversation this turn belongs to (created when new or unknown), with the question stored (unless
        `store_question` is False: it is then stored by `close_turn` or `stopped`, with the answer). A conversation
        of another user is not found, never continued."""
        cid = request.conversation_id
        found = self.repo.get(cid) if cid else None  # read once: whose it is, and whether it exists
        if found is not None and found.user_id != request.user_id:
            raise NotFound(f"Conversation '{cid}' was not found.", f"找不到会话「{cid}」。")
        if found is None:
            cid = self.repo.create(request.user_id, datasource, conversation_id=cid)
        if store_question:
            self.repo.add_message(cid, "user", question)
        return cid

    def close_turn(self, cid: str, response: AgentResponse, status: str, *, question: str | None = None,
                   also: Callable[[Any], Any] | None = None) -> int:
        """Store the answer (with its SQL, result summary and full payload); the stored message's id. With the
        `question` open_turn held back, both are stored in one transaction together with `also(connection)`."""
        reply = {"sql": response.sql, "status": status,
                 "result_summary": f"{response.row_count} rows" if response.sql else None,
                 "payload": response.model_dump(mode="json", exclude={"message_id"})}
        if question is not None:
            return self.repo.add_exchange(cid, question, response.answer, also=also or (lambda _conn: None), **reply)
        return self.repo.add_message(cid, "assistant", response.answer, **reply)

    def stopped(self, cid: str, question: str | None = None) -> None:
        """A stopped turn's reply (after the `question` open_turn held back, if any)."""
        if question is not None:
            self.repo.add_message(cid, "user", question)
        self.repo.add_message(cid, "assistant", "(stopped)", status="stopped")


class AuditHook:
    def __init__(self, store):
        self.log = store.audit

    def record(self, *turn: Any) -> None:
        """Write the turn's entry: (request, datasource, cid, question, state, status, response, started)."""
        self.log.record(**self.entry(*turn))

    def writer(self, *turn: Any) -> Callable[[Any], int]:
        """The turn's entry (as `record` takes it), to be written inside a transaction: call it with the connection."""
        fields = self.entry(*turn)
        return lambda conn: self.log.record_in(conn, **fields)

    @staticmethod
    def entry(request: AgentRequest, datasource: str, cid: str, question: str, state: dict | None,
              status: str, response: AgentResponse | None, started: float) -> dict[str, Any]:
        sql_part = (state or {}).get("sql") or {}
        error = response.error if response is not None else None
        return dict(
            user_id=request.user_id, conversation_id=cid, datasource=datasource, question=question,
            sql=sql_part.get("sql"), validation=sql_part.get("validation"),
            retries=sql_part.get("retries", 0) + sql_part.get("eval_rounds", 0),
            timings={t["node"]: t["ms"] for t in (state or {}).get("trace") or []}
            | {"total": round((time.perf_counter() - started) * 1000, 1)},
            row_count=response.row_count if response else 0, status=status,
            error_code=error.code if error else None, error_message=error.message if error else None,
            cached=bool(response and response.cached),
        )
