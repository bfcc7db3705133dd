"""POST /api/conversations/{id}/messages (Server-Sent Events) and POST .../stop."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from wenshu.server.answers import owned_conversation
from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.schemas import MessageBody, Stopped
from wenshu.server.sse import answer_stream, sse_route

router = APIRouter(prefix="/api/conversations", tags=["conversations"])


@router.post("/{conversation_id}/messages", operation_id="conversation_messages_stream",
             **sse_route("node, token, sql, result, chart, answer, error and one final done event (docs/api.md)"))
async def stream_message(conversation_id: str, body: MessageBody, state: StateDep, user: CurrentUser,
                         lang: LangDep) -> StreamingResponse:
    """Ask in this conversation and stream the answer as it is made."""
    return answer_stream(state, user, lang, conversation_id, body.message, body.datasource, plan=body.plan)


@router.post("/{conversation_id}/stop", operation_id="conversation_stop", response_model=Stopped)
def stop_message(conversation_id: str, state: StateDep, user: CurrentUser) -> Stopped:
    """Stop the answer running in this conversation; its stream then ends with done status "stopped"."""
    owned_conversation(state, user, conversation_id)
    run = state.runner.active_for(conversation_id)
    return Stopped(stopped=run is not None and state.runner.cancel(run))
