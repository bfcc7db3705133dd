"""A scripted fake chat model for tests: answers are queued per test and popped in order.

An answer may be a string (the model's text), or an Exception instance (raised, e.g. to simulate
a timeout). Every call's messages are recorded in `calls`, so tests can assert what a prompt held.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field


class ScriptExhausted(RuntimeError):
    pass


class ScriptedChatModel(BaseChatModel):
    responses: list[Any] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_kwargs: list[dict] = Field(default_factory=list)
    default: str | None = None  # answer once the queue is empty; None raises ScriptExhausted
    delay_s: float = 0.0  # pause before each streamed piece (and once per plain call): a slow model
    cpu_s: float = 0.0  # CPU time burnt before each answer (a busy loop): a CPU-bound model, for throughput benches

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @classmethod
    def from_file(cls, path: Path) -> "ScriptedChatModel":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return cls(responses=list(data.get("responses", [])), default=data.get("default"),
                       delay_s=float(data.get("delay_s", 0.0)), cpu_s=float(data.get("cpu_s", 0.0)))
        return cls(responses=list(data))

    def queue(self, *answers: Any) -> "ScriptedChatModel":
        self.responses.extend(answers)
        return self

    def _next(self, messages: list[BaseMessage], kwargs: dict) -> str:
        self.calls.append(list(messages))
        self.call_kwargs.append(dict(kwargs))
        if self.responses:
            answer = self.responses.pop(0)
        elif self.default is not None:
            answer = self.default
        else:
            raise ScriptExhausted("the scripted fake model has no answer left for this call")
        if isinstance(answer, BaseException):
            raise answer
        self._burn()
        return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)

    def _burn(self) -> None:
        """Spin the CPU for `cpu_s` seconds of this thread's CPU time (not wall time: a busy machine takes longer)."""
        end = time.thread_time() + self.cpu_s
        while self.cpu_s and time.thread_time() < end:
            sum(i * i for i in range(1000))

    @staticmethod
    def _usage(messages: list[BaseMessage], text: str) -> dict:
        prompt = sum(len(str(m.content)) for m in messages) // 4 + 1
        completion = len(text) // 4 + 1
        return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        text = self._next(messages, kwargs)
        time.sleep(self.delay_s)
        msg = AIMessage(content=text, usage_metadata=self._usage(messages, text))
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        text = self._next(messages, kwargs)
        pieces = [text[i : i + 8] for i in range(0, len(text), 8)] or [""]
        for i, piece in enumerate(pieces):
            time.sleep(self.delay_s)
            usage = self._usage(messages, text) if i == len(pieces) - 1 else None
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
