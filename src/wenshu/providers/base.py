"""The model interface the agent uses: LangChain chat models per role, plus plain and structured calls.

Roles: `fast` (intent, evaluation) and `strong` (SQL generation). A provider supplies one LangChain
`BaseChatModel` per role; `ModelClient` adds usage accounting, token streaming, JSON-schema
constrained output parsed into a pydantic model, and native tool calls for models that have them
(`native_tools`, set by `providers.registry.resolve`: an endpoint model, unless turned off).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, ValidationError

from wenshu.errors import ModelFailure, ModelTimeout, WenshuError
from wenshu.providers.thinking import ThinkSplitter

Role = Literal["fast", "strong"]
T = TypeVar("T", bound=BaseModel)
TokenCallback = Callable[[str], None]
ProgressCallback = Callable[[dict], None]  # {"stage": "prefix", "done", "total"} | {"stage": "prefix_ready", ...}


@dataclass
class UsageMeter:
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # wall time spent inside model calls

    def add(self, usage: dict | None, seconds: float = 0.0) -> None:
        self.llm_calls += 1
        self.seconds += seconds
        if usage:
            self.prompt_tokens += int(usage.get("input_tokens") or 0)
            self.completion_tokens += int(usage.get("output_tokens") or 0)


@dataclass
class ModelClient:
    models: dict[str, BaseChatModel]
    provider: str = "unknown"
    usage: UsageMeter = field(default_factory=UsageMeter)
    native_tools: bool = False  # the assistant's steps as native tool calls (an endpoint), not JSON under a schema

    def model(self, role: Role) -> BaseChatModel:
        return self.models.get(role) or self.models["strong"]

    def fresh(self) -> ModelClient:
        """The same models with a usage meter of their own (one per answer)."""
        return replace(self, usage=UsageMeter())

    def text(self, role: Role, messages: list[BaseMessage], *, on_token: TokenCallback | None = None,
             on_progress: ProgressCallback | None = None, **kw) -> str:
        """The model's answer text (never its thinking: `reply`)."""
        return str(self.reply(role, messages, on_token=on_token, on_progress=on_progress, **kw).content)

    def reply(self, role: Role, messages: list[BaseMessage], *, tools: list[dict] | None = None,
              tool_choice: str | None = None, on_token: TokenCallback | None = None,
              on_progress: ProgressCallback | None = None, on_thinking: TokenCallback | None = None,
              aside: bool = False, **kw) -> AIMessage:
        """The model's whole message: its text (streamed to `on_token` as it comes) and, with `tools`
        (OpenAI function specs, bound natively; `tool_choice` "required": a call, no text answer), the tool
        calls it made, parsed or not (`invalid_tool_calls`). A reasoning model's thinking (an endpoint's
        `reasoning_content`, or `<think>…</think>` opening the text) goes to `on_thinking` and is left out of
        the text (providers/thinking.py). `aside`: a short call between two others (a translation between
        two steps) that leaves a local model's context as it found it, so the next call reuses it."""
        model = self.model(role)
        if on_progress is not None and getattr(model, "reports_progress", False):
            kw["on_progress"] = on_progress  # only models that declare it: others would send it to their API
        if aside and getattr(model, "sets_aside", False):
            kw["aside"] = True
        runnable = model.bind_tools(tools, tool_choice=tool_choice) if tools else model
        t0 = time.perf_counter()
        try:
            if on_token is None:
                msg = runnable.invoke(messages, **kw)
                self.usage.add(getattr(msg, "usage_metadata", None), time.perf_counter() - t0)
                return _without_thinking(msg, on_thinking)
            whole, usage = None, None
            split = ThinkSplitter(on_token, on_thinking)
            for chunk in runnable.stream(messages, **kw):
                reasoning = chunk.additional_kwargs.get("reasoning_content")
                if reasoning and on_thinking is not None:
                    on_thinking(str(reasoning))
                if chunk.content:
                    split.feed(str(chunk.content))
                usage = chunk.usage_metadata or usage
                whole = chunk if whole is None else whole + chunk
            split.close()
            self.usage.add(usage, time.perf_counter() - t0)
            text = whole is None or isinstance(whole.content, str)  # content blocks (a plugin's model) stay as sent
            return AIMessage(content=split.answer if text else whole.content,
                             tool_calls=getattr(whole, "tool_calls", []),
                             invalid_tool_calls=getattr(whole, "invalid_tool_calls", []))  # fmt: skip
        except WenshuError:
            raise
        except TimeoutError as exc:
            raise ModelTimeout() from exc
        except Exception as exc:
            if "timeout" in type(exc).__name__.lower():
                raise ModelTimeout() from exc
            raise ModelFailure(f"The model failed to answer: {exc}", f"模型调用失败：{exc}") from exc

    def structured(self, role: Role, messages: list[BaseMessage], schema: type[T], *,
                   json_schema: dict | None = None, on_progress: ProgressCallback | None = None) -> T:
        """Ask for JSON that matches `schema` (constrained where the provider supports it); `json_schema`
        narrows the constraint (e.g. enums of this datasource's ids) while `schema` parses the answer."""
        response_format = schema_format(schema.__name__, json_schema or schema.model_json_schema())
        raw = self.text(role, messages, response_format=response_format, on_progress=on_progress)
        return parse_json_as(raw, schema)


def _without_thinking(msg: AIMessage, on_thinking: TokenCallback | None) -> AIMessage:
    """A whole (not streamed) message with its thinking handed to `on_thinking` and cut from its text."""
    thinking, content = ThinkSplitter.split(msg.content) if isinstance(msg.content, str) else ("", msg.content)
    thinking = str(msg.additional_kwargs.get("reasoning_content") or "") + thinking
    if thinking and on_thinking is not None:
        on_thinking(thinking)
    return msg if content == msg.content else msg.model_copy(update={"content": content})


_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


class InvalidAnswer(ValueError):
    """A model's answer that cannot be used as it is; the message says exactly why, so it can be sent back
    once as a repair (the assistant's steps, workspace tasks)."""


def schema_format(name: str, schema: dict) -> dict:
    """The OpenAI-style `response_format` for JSON under `schema`: grammar-constrained on the embedded model,
    structured output on an endpoint."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def json_object(raw: str) -> dict:
    """The JSON object in a model's answer, tolerating fences or prose around it; InvalidAnswer otherwise."""
    match = _JSON_OBJECT.search(raw or "")
    try:
        data = json.loads(match.group(0) if match else raw)
    except (json.JSONDecodeError, TypeError) as err:
        raise InvalidAnswer(f"the answer is not one JSON object ({err})") from err
    if not isinstance(data, dict):
        raise InvalidAnswer("the answer is not a JSON object")
    return data


def parse_json_as(raw: str, schema: type[T]) -> T:
    """Parse a model's JSON answer into `schema`, tolerating fences or prose around the object."""
    try:
        return schema.model_validate(json_object(raw))
    except (InvalidAnswer, ValidationError) as exc:
        raise ModelFailure(
            f"The model's answer was not the expected JSON: {raw[:120]!r}",
            f"模型返回的不是预期的 JSON：{raw[:120]!r}",
        ) from exc
