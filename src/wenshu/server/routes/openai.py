"""OpenAI-compatible endpoint: `POST /v1/chat/completions` (streaming or not) and `GET /v1/models`.

Any OpenAI chat client can use Wenshu as the model `wenshu` (or `wenshu:<datasource>`). The last
user message is the question; the conversation id travels in the `X-Wenshu-Conversation` header or
the `user` field (a new conversation when absent) and comes back in that header and under
`wenshu.conversation_id`. The answer is Markdown: the answer text, the SQL and the first rows.
Every failure here, including auth and validation, uses OpenAI's error shape (see docs/openai.md).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from wenshu.channels.markdown import details_markdown, response_markdown
from wenshu.errors import InvalidToken, RunCancelled, WenshuError
from wenshu.i18n import detect_lang
from wenshu.server import openai_format as fmt
from wenshu.server.answers import answer_and_wait, start_answer
from wenshu.server.deps import Principal, ServerState, StateDep, current_user, request_lang, visible_datasources
from wenshu.server.errors import http_error, status_for, validation_error
from wenshu.server.runner import Run
from wenshu.server.sse import PING, StreamBridge


def _openai_error(err: WenshuError, status: int | None = None, *, request: Request) -> JSONResponse:
    status = status or status_for(err)
    headers = {"Retry-After": str(err.retry_after)} if hasattr(err, "retry_after") else None
    return JSONResponse(fmt.openai_error(err, request_lang(request), status), status_code=status, headers=headers)


class OpenAIRoute(APIRoute):
    """Routes whose failures (auth, rate limit, validation, size) answer in OpenAI's error shape."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def wrapped(request: Request):
            try:
                return await handler(request)
            except WenshuError as err:
                return _openai_error(err, request=request)
            except RequestValidationError as exc:
                return _openai_error(*validation_error(exc), request=request)
            except StarletteHTTPException as exc:
                return _openai_error(*http_error(request, exc), request=request)

        return wrapped


router = APIRouter(tags=["openai"], route_class=OpenAIRoute)


async def openai_user(request: Request, state: StateDep) -> Principal:
    """CurrentUser, except that a server without auth ignores the API key: OpenAI clients always send one."""
    try:
        return await current_user(request, state)
    except InvalidToken:
        if await run_in_threadpool(state.auth_required):  # may ask the store
            raise
    scope = dict(request.scope)  # the same request without its Authorization header (state is shared)
    scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k.lower() != b"authorization"]
    return await current_user(Request(scope), state)


OpenAIUser = Annotated[Principal, Depends(openai_user)]


@router.get("/v1/models", operation_id="openai_models", summary="Models: `wenshu` and `wenshu:<datasource>`")
def openai_models(state: StateDep, user: OpenAIUser) -> dict:
    return fmt.model_list([r.name for r in visible_datasources(state.store, user)])


def _datasource(state: ServerState, user: Principal, model: str) -> str:
    visible = [r.name for r in visible_datasources(state.store, user)]
    return fmt.datasource_of(model, visible) or state.settings.default_datasource


@router.post("/v1/chat/completions", operation_id="openai_chat_completions",
             summary="OpenAI chat completions: the agent as the model `wenshu`")
async def openai_chat_completions(
    body: fmt.ChatRequest, state: StateDep, user: OpenAIUser,
    x_wenshu_conversation: str | None = Header(None),
):
    question = fmt.question_of(body)
    lang = detect_lang(question)
    datasource = _datasource(state, user, body.model)
    conversation = fmt.conversation_of(x_wenshu_conversation, body.user)
    if not body.stream:
        response = await answer_and_wait(state, user, question, conversation, datasource)
        body_out = fmt.completion_body(fmt.completion_id(response.conversation_id), body.model,
                                       response_markdown(response, lang), response)
        return JSONResponse(body_out, headers={fmt.CONVERSATION_HEADER: response.conversation_id})
    bridge = StreamBridge()
    run = start_answer(state, user, question, conversation, datasource, sink=bridge.sink)
    include_usage = bool((body.stream_options or {}).get("include_usage"))
    events = _stream(state, run, bridge, body.model, lang, include_usage)
    headers = {fmt.CONVERSATION_HEADER: run.conversation_id, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(events, media_type="text/event-stream", headers=headers)


def _run_error(run: Run) -> WenshuError:
    return run.error or (RunCancelled() if run.status == "cancelled" else WenshuError())


async def _stream(state: ServerState, run: Run, bridge: StreamBridge, model: str, lang: str,
                  include_usage: bool) -> AsyncIterator[str]:
    """`chat.completion.chunk`s: the role at once, the answer text when the graph has it, then the SQL
    and the table, a final chunk with finish_reason "stop" and `data: [DONE]`. Leaving early cancels."""
    cid, created, answered = fmt.completion_id(run.conversation_id), int(time.time()), False
    try:
        yield fmt.chunk(cid, model, created, {"role": "assistant", "content": ""})
        async for event in bridge.events(state.settings.sse_ping_s):
            if event is None:
                yield PING
            elif event.type == "answer" and isinstance(event.data, str) and not answered:
                answered = True
                for piece in fmt.split_text(event.data):
                    yield fmt.chunk(cid, model, created, {"content": piece})
        if run.response is None:
            yield fmt.error_chunk(_run_error(run), lang)
            yield fmt.DONE
            return
        rest = details_markdown(run.response, lang) if answered else response_markdown(run.response, lang)
        for piece in fmt.split_text(("\n\n" + rest) if answered and rest else rest, 256):
            yield fmt.chunk(cid, model, created, {"content": piece})
        yield fmt.chunk(cid, model, created, {}, "stop", wenshu=fmt.wenshu_metadata(run.response))
        if include_usage:
            yield fmt.usage_chunk(cid, model, created, run.response.usage)
        yield fmt.DONE
    finally:
        if not run.finished:  # the client disconnected mid-stream: no dangling work
            state.runner.cancel(run)
