"""The embedded chat model: llama.cpp (llama-cpp-python) behind LangChain's chat model interface.

One `Llama` instance per model file is loaded once and shared by every role and call; calls take
turns on it (one lock), and a call's time limit starts once it holds the model, not while it waits.
A prompt whose system message is marked `prefix_cache` keeps that message evaluated across questions
and processes (`prefix_cache.PrefixCache`). Structured steps pass `response_format={"type":
"json_schema", "json_schema": {"schema": ...}}` (OpenAI style); it becomes llama.cpp's
grammar-constrained JSON output.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, PrivateAttr

from wenshu.errors import ModelFailure, ModelMissing, ModelTimeout, WenshuError
from wenshu.providers.prefix_cache import PrefixCache, kept
from wenshu.providers.runtime import select_library

log = logging.getLogger("wenshu.model")
_ROLES = {"human": "user", "ai": "assistant", "system": "system"}
_INSTANCES: dict[tuple, Any] = {}
_LOAD_LOCK = threading.Lock()


def load_llama(path: Path, n_ctx: int, n_threads: int, variant: str = "auto"):
    """Load (once per process) the GGUF at `path`, on the CPU backend this machine supports."""
    key = (str(path), n_ctx, n_threads)
    with _LOAD_LOCK:
        if key not in _INSTANCES:
            select_library(variant)
            try:
                from llama_cpp import Llama
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise ModelMissing(
                    "llama-cpp-python is not installed; run `make install` (or `python scripts/build_llama.py`).",
                    "未安装 llama-cpp-python，请运行 `make install`（或 `python scripts/build_llama.py`）。",
                ) from exc
            # llama-cpp-python defaults to half the cores for generation; all of them is 50-75 % faster on 2 cores
            # (python -m bench runtime).
            threads = n_threads if n_threads > 0 else (os.cpu_count() or 1)
            _INSTANCES[key] = Llama(model_path=str(path), n_ctx=n_ctx, verbose=False, n_threads=threads,
                                    n_threads_batch=threads)
        return _INSTANCES[key]


@atexit.register
def _close_all() -> None:
    """Free models before interpreter teardown (llama.cpp's finalizers fail once modules are gone)."""
    with _LOAD_LOCK:
        for llama in _INSTANCES.values():
            llama.close()
        _INSTANCES.clear()


def grammar_safe(schema):
    """The schema with every `enum` or `const` that holds a string with a double quote loosened to its type:
    llama-cpp-python 0.3.36 writes such a value into a grammar its parser rejects, and the process then
    crashes (an MCP server's tool may declare one). The tool still checks the value it is given."""
    if isinstance(schema, list):
        return [grammar_safe(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    values = (schema["enum"] if isinstance(schema.get("enum"), list) else []) + [schema.get("const")]
    quoted = any(isinstance(v, str) and '"' in v for v in values)
    loose = {k: v for k, v in schema.items() if not (quoted and k in ("enum", "const"))}
    if quoted and "type" not in loose:
        loose["type"] = "string"
    return {k: v if k in ("enum", "const") and not isinstance(v, dict) else grammar_safe(v) for k, v in loose.items()}


def _to_llama_format(response_format: dict | None) -> dict | None:
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": grammar_safe(response_format["json_schema"]["schema"])}
    return response_format


class ChatLlamaCpp(BaseChatModel):
    model_path: Path
    n_ctx: int = 4096
    n_threads: int = 0
    max_tokens: int = 384
    temperature: float = 0.0
    timeout_s: float = 120.0
    cpu_variant: str = "auto"
    prefix_cache: PrefixCache | None = None
    model_config = ConfigDict(arbitrary_types_allowed=True)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    reports_progress: bool = True  # ModelClient passes `on_progress` (prefix building) to this model
    sets_aside: bool = True  # ModelClient passes `aside` (a call that leaves the context as it found it)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def llama(self):
        return load_llama(self.model_path, self.n_ctx, self.n_threads, self.cpu_variant)

    def preload(self) -> None:
        """Start loading the model in the background, so it overlaps intent and recall (a cold process)."""
        def load() -> None:
            try:
                self.llama
            except Exception as exc:  # the answer's own call loads again and reports it
                log.debug("background model load failed: %s", exc)

        threading.Thread(target=load, name="wenshu-model-load", daemon=True).start()

    def _request(self, messages: list[BaseMessage], stop, kwargs: dict) -> dict:
        return {
            "messages": [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages],
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "temperature": kwargs.get("temperature", self.temperature),
            "seed": kwargs.get("seed", 42),
            "stop": stop or kwargs.get("stop"),
            "response_format": _to_llama_format(kwargs.get("response_format")),
        }

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        chunks = list(self._stream(messages, stop=stop, run_manager=run_manager, **kwargs))
        text = "".join(str(c.message.content) for c in chunks)
        usage = next((c.message.usage_metadata for c in reversed(chunks) if c.message.usage_metadata), None)
        msg = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _warm(self, llama, messages: list[BaseMessage], request: dict, on_progress: Callable | None) -> None:
        label = messages[0].additional_kwargs.get("prefix_cache") if messages else None
        if not label or self.prefix_cache is None:
            return
        tokens = self.prefix_cache.prefix_tokens(llama, request["messages"])
        if tokens:
            warmed = self.prefix_cache.warm(llama, tokens, str(label), on_progress)
            if on_progress and warmed.source != "memory":
                on_progress({"stage": "prefix_ready", "source": warmed.source, "tokens": warmed.tokens})

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        on_progress = kwargs.pop("on_progress", None)
        aside = kwargs.pop("aside", False)
        request = self._request(messages, stop, kwargs)
        llama = self.llama
        with self._lock, kept(llama) if aside else nullcontext():
            try:
                self._warm(llama, messages, request, on_progress)  # a one-time build reports its own progress
                # the limit starts now: neither waiting for the model nor preparing a prefix is a stuck answer
                started = time.monotonic()
                stream = llama.create_chat_completion(stream=True, **request)
                n_out = 0
                for part in stream:
                    delta = part["choices"][0].get("delta", {}).get("content") or ""
                    if not delta:
                        continue
                    n_out += 1
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
                    if run_manager:
                        run_manager.on_llm_new_token(delta, chunk=chunk)
                    yield chunk
                    if time.monotonic() - started > self.timeout_s:
                        raise ModelTimeout()
            except (WenshuError, KeyboardInterrupt, GeneratorExit):  # a timeout, a stop from a callback
                raise
            except Exception as exc:  # llama.cpp errors: context overflow, bad grammar...
                raise ModelFailure(f"The embedded model failed: {exc}", f"内置模型出错：{exc}") from exc
            n_prompt = max(llama.n_tokens - n_out, 0)
        usage = {"input_tokens": n_prompt, "output_tokens": n_out, "total_tokens": n_prompt + n_out}
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))
