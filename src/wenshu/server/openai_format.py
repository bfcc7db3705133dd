"""OpenAI chat-completions wire format for the agent: request parsing, completion bodies, chunks, errors.

Pure functions (no FastAPI), used by `server/routes/openai.py`:
- the last user message is the question; `model` is `wenshu` or `wenshu:<datasource>`;
- the conversation id comes from the `X-Wenshu-Conversation` header or the `user` field;
- errors use OpenAI's shape `{"error": {"message", "type", "code"}}`, not the /api shape.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from wenshu.errors import InputError, UnknownModel, WenshuError
from wenshu.storage.schema import ID_LEN

MODEL = "wenshu"
OWNER = "wenshu"
CONVERSATION_HEADER = "X-Wenshu-Conversation"

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "invalid_request_error", 413: "invalid_request_error", 422: "invalid_request_error",
               429: "rate_limit_error"}


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """The fields Wenshu reads; anything else a client sends (temperature, tools...) is accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = MODEL
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    user: str | None = None
    stream_options: dict[str, Any] | None = None


def message_text(message: ChatMessage) -> str:
    """Plain text of a message; content parts other than text (images...) are skipped."""
    if isinstance(message.content, str):
        return message.content
    parts = message.content or []
    return "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


def question_of(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user":
            text = message_text(message).strip()
            if text:
                return text
            break
    raise InputError("The last user message is empty; send the question as a user message.",
                     "最后一条用户消息为空；请把问题放在 user 消息里发送。", code="empty_question")


def datasource_of(model: str, known: list[str]) -> str | None:
    """None for plain `wenshu` (the default datasource), the name for `wenshu:<name>`."""
    name, _, ds = model.partition(":")
    if name != MODEL or (ds and ds not in known):
        raise UnknownModel()
    return ds or None


def conversation_of(header: str | None, user: str | None) -> str | None:
    value = (header or user or "").strip()
    if len(value) > ID_LEN:
        raise InputError(f"The conversation id is longer than {ID_LEN} characters.", f"会话 ID 超过 {ID_LEN} 个字符。",
                         code="input_invalid")
    return value or None


def model_list(datasources: list[str], created: int = 0) -> dict:
    ids = [MODEL] + [f"{MODEL}:{name}" for name in datasources]
    return {"object": "list",
            "data": [{"id": i, "object": "model", "created": created, "owned_by": OWNER} for i in ids]}


def completion_id(conversation_id: str) -> str:
    return f"chatcmpl-{conversation_id}-{uuid.uuid4().hex[:8]}"


def usage_block(usage) -> dict:
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.prompt_tokens + usage.completion_tokens}


def completion_body(cid: str, model: str, content: str, response) -> dict:
    """A `chat.completion` object; Wenshu extras (conversation, sql, rows) go under `wenshu`."""
    return {
        "id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": usage_block(response.usage),
        "wenshu": wenshu_metadata(response),
    }


def wenshu_metadata(response) -> dict:
    error = response.error.model_dump() if response.error else None
    return {"conversation_id": response.conversation_id, "sql": response.sql, "row_count": response.row_count,
            "cached": response.cached, "error": error}


def chunk(cid: str, model: str, created: int, delta: dict, finish: str | None = None, **extra) -> str:
    """One `chat.completion.chunk` as an SSE `data:` line."""
    body = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
    return "data: " + json.dumps(body, ensure_ascii=False) + "\n\n"


def usage_chunk(cid: str, model: str, created: int, usage) -> str:
    """The last chunk when the client asked for `stream_options.include_usage`: no choices, the usage."""
    body = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
            "usage": usage_block(usage)}
    return "data: " + json.dumps(body, ensure_ascii=False) + "\n\n"


DONE = "data: [DONE]\n\n"


def split_text(text: str, size: int = 24) -> list[str]:
    """Pieces of a text for streaming (line breaks kept inside pieces)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def openai_error(err: Exception, lang: str, status: int) -> dict:
    payload = err.to_dict(lang) if isinstance(err, WenshuError) else WenshuError().to_dict(lang)
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": payload["message"], "type": kind, "code": payload["code"], "param": None}}


def error_chunk(err: Exception, lang: str) -> str:
    return "data: " + json.dumps(openai_error(err, lang, 500), ensure_ascii=False) + "\n\n"
