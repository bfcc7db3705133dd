"""The embedded chat model: llama.cpp (llama-cpp-python) behind LangChain's chat model interface.

One `Llama` instance per model file is loaded once and shared by every role and call, so llama.cpp's
prompt-prefix reuse stays warm: prompts keep their stable part (role, schema) first. Structured steps
pass `response_format={"type": "json_schema", "json_schema": {"schema": ...}}` (OpenAI style); it is
turned into llama.cpp's grammar-constrained JSON output.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, PrivateAttr

from wenshu.errors import ModelFailure, ModelMissing, ModelTimeout

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}
_INSTANCES: dict[tuple, Any] = {}
_LOAD_LOCK = threading.Lock()


def load_llama(path: Path, n_ctx: int, n_threads: int, cache_mb: int = 0):
    """Load (once per process) the GGUF at `path`.

    A RAM cache of evaluated prompt states lets different prompts (SQL generation, intent, evaluation)
    each keep their prefix warm instead of evicting each other.
    """
    key = (str(path), n_ctx, n_threads)
    with _LOAD_LOCK:
        if key not in _INSTANCES:
            try:
                from llama_cpp import Llama, LlamaRAMCache
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise ModelMissing(
                    "llama-cpp-python is not installed; run `pip install 'wenshu[embedded]'`.",
                    "未安装 llama-cpp-python，请运行 `pip install 'wenshu[embedded]'`。",
                ) from exc
            kwargs = {"n_threads": n_threads} if n_threads > 0 else {}
            llama = Llama(model_path=str(path), n_ctx=n_ctx, verbose=False, **kwargs)
            if cache_mb > 0:
                llama.set_cache(LlamaRAMCache(capacity_bytes=cache_mb << 20))
            _INSTANCES[key] = llama
        return _INSTANCES[key]


@atexit.register
def _close_all() -> None:
    """Free models before interpreter teardown (llama.cpp's finalizers fail once modules are gone)."""
    with _LOAD_LOCK:
        for llama in _INSTANCES.values():
            llama.close()
        _INSTANCES.clear()


def _to_llama_format(response_format: dict | None) -> dict | None:
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
    return response_format


class ChatLlamaCpp(BaseChatModel):
    model_path: Path
    n_ctx: int = 4096
    n_threads: int = 0
    max_tokens: int = 384
    temperature: float = 0.0
    timeout_s: float = 120.0
    cache_mb: int = 0
    model_config = ConfigDict(arbitrary_types_allowed=True)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def llama(self):
        return load_llama(self.model_path, self.n_ctx, self.n_threads, self.cache_mb)

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

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        request = self._request(messages, stop, kwargs)
        llama = self.llama
        started = time.monotonic()
        with self._lock:
            try:
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
            except (ModelTimeout, KeyboardInterrupt, GeneratorExit):
                raise
            except Exception as exc:  # llama.cpp errors: context overflow, bad grammar...
                raise ModelFailure(f"The embedded model failed: {exc}", f"内置模型出错：{exc}") from exc
            n_prompt = max(llama.n_tokens - n_out, 0)
        usage = {"input_tokens": n_prompt, "output_tokens": n_out, "total_tokens": n_prompt + n_out}
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))
