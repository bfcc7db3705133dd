"""`POST /channels/webhook/{name}`: a chat robot posts a signed message, Wenshu replies in the response.

Flow: find the channel (404 unknown, 403 without a secret) -> verify the HMAC signature over the raw
body within the replay window (401) -> parse JSON (400) -> answer a URL-verification handshake, or
map the message to an AgentRequest (user = the chat user, one conversation per chat/thread) -> reply
with the platform's payload: Markdown text (answer, SQL, first rows) and the chart as a PNG. In a team
deployment a channel with a push_url has its questions answered by the queue's workers (channel_tasks.py).
Failures before the agent runs use the shared `{"error": {"code", "message"}}` shape; an agent error
is a chat reply, since the person in the chat is the one who must read it.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from wenshu.channels.base import Channel, IncomingMessage
from wenshu.channels.registry import build_channel
from wenshu.contracts import AgentResponse
from wenshu.errors import InputError, WebhookSignatureInvalid, WenshuError
from wenshu.i18n import detect_lang
from wenshu.server.answers import answer_and_wait
from wenshu.server.channel_tasks import pushes, queued_answer
from wenshu.server.deps import Principal, ServerState, StateDep

router = APIRouter(tags=["channels"])


def _json_body(body: bytes) -> dict:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise InputError("The webhook body is not a JSON object.", "Webhook 请求体不是 JSON 对象。",
                         code="input_invalid_json")
    return data


def chat_principal(channel: Channel, message: IncomingMessage, default_datasource: str) -> Principal:
    """The chat user, namespaced by channel, allowed only the channel's datasource."""
    return Principal(f"{channel.name}:{message.user_id}", None, frozenset({channel.datasource or default_datasource}))


async def _answer(state: ServerState, channel: Channel, message: IncomingMessage) -> AgentResponse:
    """The agent's answer; a failure (busy conversation, bad datasource...) becomes the reply text."""
    user = chat_principal(channel, message, state.settings.default_datasource)
    cid = message.conversation_id(channel.name)
    try:
        if pushes(state, channel):  # a team deployment: a worker answers, and pushes it when it takes long
            return await queued_answer(state, user, channel, message, cid)
        return await answer_and_wait(state, user, message.text, cid, channel.datasource)
    except WenshuError as err:
        lang = detect_lang(message.text)
        return AgentResponse(conversation_id=cid, answer=err.message(lang), error=err.to_dict(lang))


@router.post("/channels/webhook/{name}", operation_id="channel_webhook",
             summary="Chat-robot webhook (WeCom / Feishu style), HMAC-SHA256 signed")
async def channel_webhook(name: str, request: Request, state: StateDep) -> JSONResponse:
    channel = build_channel(name, state.settings)
    body = await request.body()
    if not channel.verify(request.headers, body):
        raise WebhookSignatureInvalid()
    data = _json_body(body)
    handshake = channel.handshake(data)
    if handshake is not None:
        return JSONResponse(handshake)
    message = channel.parse(data)
    if message is None:
        return JSONResponse({"ignored": True})
    state.limiter.check(f"webhook:{name}:{message.user_id}")
    response = await _answer(state, channel, message)
    return JSONResponse(await run_in_threadpool(channel.render, response, detect_lang(message.text)))
