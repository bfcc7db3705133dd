"""POST /api/ask: one question, one AgentResponse (JSON, not streamed)."""

from __future__ import annotations

from fastapi import APIRouter

from wenshu.contracts import AgentResponse
from wenshu.server.answers import answer_and_wait
from wenshu.server.deps import CurrentUser, StateDep
from wenshu.server.schemas import AskBody

router = APIRouter(tags=["ask"])


@router.post("/api/ask", operation_id="ask", response_model=AgentResponse)
async def ask(body: AskBody, state: StateDep, user: CurrentUser) -> AgentResponse:
    """Answer a question; a new conversation is created unless `conversation_id` names one of yours."""
    return await answer_and_wait(state, user, body.message, body.conversation_id, body.datasource, body.plan)
