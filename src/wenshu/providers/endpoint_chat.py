"""The `openai` provider's chat model: LangChain's ChatOpenAI, whose requests the OpenAI SDK retries, and
whose failures once the retries are spent are Wenshu errors that name the endpoint and the attempts.

    EndpointChat(base_url=..., model=..., timeout=settings.llm_timeout_s, max_retries=settings.llm_max_retries)

The SDK retries a request that timed out, could not connect, or got 408/409/429/5xx, `max_retries` times
with exponential backoff (0.5 s doubling up to 8 s, less up to 25 % jitter; a server's Retry-After of at
most two minutes wins). What still fails becomes `model_timeout`, `model_unreachable` or
`model_endpoint_error` (providers/errors.py); any other refusal (a 400, a wrong key) stays the SDK's
error, which the agent reports as `model_error` with the endpoint's own words.

A reasoning model's thinking, which ChatOpenAI drops (`reasoning_content` or `reasoning` beside the content
of a delta or a message: DeepSeek, Qwen3, vLLM), is kept in the message's
`additional_kwargs["reasoning_content"]`, where `ModelClient.reply` hands it to `on_thinking`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import openai
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

from wenshu.providers.errors import EndpointFailed, EndpointTimeout, EndpointUnreachable
from wenshu.providers.thinking import reasoning_of


class EndpointChat(ChatOpenAI):
    """ChatOpenAI with the endpoint's lasting failures as Wenshu errors."""

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        with self._spent_retries():
            return super()._generate(*args, **kwargs)

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        with self._spent_retries():
            yield from super()._stream(*args, **kwargs)

    def _convert_chunk_to_generation_chunk(self, chunk: dict, default_chunk_class: type,
                                           base_generation_info: dict | None) -> ChatGenerationChunk | None:
        out = super()._convert_chunk_to_generation_chunk(chunk, default_chunk_class, base_generation_info)
        choices = chunk.get("choices") or []
        reasoning = reasoning_of(choices[0].get("delta") or {}) if choices else ""
        if out is not None and reasoning:
            out.message.additional_kwargs["reasoning_content"] = reasoning
        return out

    def _create_chat_result(self, response: Any, generation_info: dict | None = None) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        raw = response if isinstance(response, dict) else response.model_dump()
        for generation, choice in zip(result.generations, raw.get("choices") or [], strict=False):
            reasoning = reasoning_of(choice.get("message") or {})
            if reasoning:
                generation.message.additional_kwargs["reasoning_content"] = reasoning
        return result

    @contextmanager
    def _spent_retries(self) -> Iterator[None]:
        attempts = (self.max_retries or 0) + 1
        url = str(self.openai_api_base or "the OpenAI API")
        try:
            yield
        except openai.APITimeoutError as exc:
            raise EndpointTimeout(url, attempts, float(self.request_timeout or 0)) from exc
        except openai.APIConnectionError as exc:
            raise EndpointUnreachable(url, attempts) from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
                raise EndpointFailed(url, attempts, exc.status_code) from exc
            raise
