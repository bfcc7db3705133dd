"""POST /api/conversations/{id}/assistant (Server-Sent Events): the general assistant, in a conversation.

The same stream, checks and runner as POST /api/conversations/{id}/messages (routes/stream.py): the user's
own conversation, the datasource grant, one answer at a time per conversation, POST .../stop to stop it.
The assistant's rules send a data question straight to the data pipeline (no model call added); other
requests go to its tools and skills, whose steps stream as `node` events (docs/api.md).

With `workspace` the workspace tools work in that folder: the same admin check and the same folder check
(`workspace_roots`, 403 `workspace_not_allowed` / `workspace_roots_unset`) as a workspace task's, made
before anything runs.
"""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.schemas import AssistantBody
from wenshu.server.sse import answer_stream, sse_route

router = APIRouter(prefix="/api/conversations", tags=["assistant"])
EVENTS = ("node (route, decide, tool and the data pipeline's), token, sql, result, chart, answer (an "
          "AssistantResponse), error and one final done event (docs/api.md)")


@router.post("/{conversation_id}/assistant", operation_id="conversation_assistant_stream", **sse_route(EVENTS))
async def assistant_message(conversation_id: str, body: AssistantBody, state: StateDep, user: CurrentUser,
                            lang: LangDep) -> StreamingResponse:
    """Ask the general assistant in this conversation and stream its steps and answer as they happen."""
    answer = state.assistant.answer
    if body.workspace is not None:
        state.workspace_tasks.require_admin(user)
        answer = partial(answer, workspace=state.workspace_tasks.roots().check(body.workspace))
    return answer_stream(state, user, lang, conversation_id, body.message, body.datasource, answer=answer)
