"""What a turn leaves behind, outside the graph: its place in a conversation and its audit record.

`Agent.ask` opens a turn with `Conversations` (who may continue a conversation; the user's message
stored), runs the graph, closes the turn with the answer, and hands it to the `AuditHook` (who asked
what, the SQL that ran, how it went and how long each step took), whether it answered, failed or was
stopped. Nothing in the graph writes messages or audit records.
"""

from __future__ import annotations

import time

from wenshu.contracts import AgentRequest, AgentResponse
from wenshu.errors import NotFound


class Conversations:
    def __init__(self, store):
        self.repo = store.conversations

    def open_turn(self, request: AgentRequest, datasource: str, question: str) -> str:
        """The conversation this turn belongs to (created when new or unknown), with the question stored.
        A conversation of another user is not found, never continued."""
        cid = request.conversation_id
        found = self.repo.get(cid) if cid else None  # read once: whose it is, and whether it exists
        if found is not None and found.user_id != request.user_id:
            raise NotFound(f"Conversation '{cid}' was not found.", f"找不到会话「{cid}」。")
        if found is None:
            cid = self.repo.create(request.user_id, datasource, conversation_id=cid)
        self.repo.add_message(cid, "user", question)
        return cid

    def close_turn(self, cid: str, response: AgentResponse, status: str) -> int:
        """Store the answer (with its SQL, result summary and full payload); the stored message's id."""
        return self.repo.add_message(
            cid, "assistant", response.answer, sql=response.sql, status=status,
            result_summary=f"{response.row_count} rows" if response.sql else None,
            payload=response.model_dump(mode="json", exclude={"message_id"}))

    def stopped(self, cid: str) -> None:
        self.repo.add_message(cid, "assistant", "(stopped)", status="stopped")


class AuditHook:
    def __init__(self, store):
        self.log = store.audit

    def record(self, request: AgentRequest, datasource: str, cid: str, question: str, state: dict | None,
               status: str, response: AgentResponse | None, started: float) -> None:
        sql_part = (state or {}).get("sql") or {}
        error = response.error if response is not None else None
        self.log.record(
            user_id=request.user_id, conversation_id=cid, datasource=datasource, question=question,
            sql=sql_part.get("sql"), validation=sql_part.get("validation"),
            retries=sql_part.get("retries", 0) + sql_part.get("eval_rounds", 0),
            timings={t["node"]: t["ms"] for t in (state or {}).get("trace") or []}
            | {"total": round((time.perf_counter() - started) * 1000, 1)},
            row_count=response.row_count if response else 0, status=status,
            error_code=error.code if error else None, error_message=error.message if error else None,
            cached=bool(response and response.cached),
        )
