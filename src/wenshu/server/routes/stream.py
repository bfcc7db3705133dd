"""POST /api/conversations/{id}/messages (Server-Sent Events) and POST .../stop."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from wenshu.server.answers import owned_conversation, start_answer
from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.schemas import MessageBody, Stopped
from wenshu.server.sse import StreamBridge, stream_run

router = APIRouter(prefix="/api/conversations", tags=["conversations"])

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@router.post(
    "/{conversation_id}/messages",
    operation_id="conversation_messages_stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "node, token, sql, result, chart, "
                     "answer, error and one final done event (docs/api.md)"}},
)
async def stream_message(conversation_id: str, body: MessageBody, state: StateDep, user: CurrentUser,
                         lang: LangDep) -> StreamingResponse:
    """Ask in this conversation and stream the answer as it is made."""
    owned_conversation(state, user, conversation_id)
    bridge = StreamBridge()
    run = start_answer(state, user, body.message, conversation_id, body.datasource, create_missing=False,
                       sink=bridge.sink, plan=body.plan)
    events = stream_run(run, bridge, state.runner, lang, state.settings.sse_ping_s)
    return StreamingResponse(events, media_type="text/event-stream", headers=SSE_HEADERS)


@router.post("/{conversation_id}/stop", operation_id="conversation_stop", response_model=Stopped)
def stop_message(conversation_id: str, state: StateDep, user: CurrentUser) -> Stopped:
    """Stop the answer running in this conversation; its stream then ends with done status "stopped"."""
    owned_conversation(state, user, conversation_id)
    run = state.runner.active_for(conversation_id)
    return Stopped(stopped=run is not None and state.runner.cancel(run))
