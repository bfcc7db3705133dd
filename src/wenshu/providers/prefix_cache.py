"""Keep a prompt's stable prefix evaluated: in the live context, else loaded from disk, else built once.

A prompt whose system message carries `additional_kwargs["prefix_cache"] = NAME` declares that message
the same for every question of NAME (a datasource). Its tokens, up to the start of the user's turn, are
the prefix. Before generating, `PrefixCache.warm` makes the model's KV cache hold exactly that prefix:

- already in the context (the same prefix answered the last question): nothing to do;
- saved on disk by any process (`PrefixStore`, keyed by the model's hash and the prefix's tokens):
  loaded into the context — milliseconds, not the ~45 s it takes 2 cores to read 1,800 tokens;
- otherwise evaluated in chunks, reporting progress, then saved for every later process.

llama-cpp-python's `generate` then reuses the prefix and evaluates only the question. Only the KV
cache of sequence 0 is saved (`llama_state_seq_*`), never the logits buffer.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from wenshu.providers.prefix_store import PrefixStore, prefix_hash

log = logging.getLogger("wenshu.model")
Progress = Callable[[dict], None]
SENTINEL = "\x00"  # a user turn no real prompt starts with: where two renderings part is the prefix's end
CHUNK = 128  # tokens evaluated between progress reports


@dataclass
class Warmed:
    source: str  # memory | disk | built | none
    tokens: int = 0


def _common(a, b) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixCache:
    def __init__(self, store: PrefixStore, model_hash: str, min_tokens: int = 256):
        self.store, self.model_hash, self.min_tokens = store, model_hash, min_tokens
        self._formatters: dict[int, object] = {}

    # -- the prefix ---------------------------------------------------------------------------
    def _formatter(self, llama):
        if id(llama) not in self._formatters:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = llama.metadata.get("tokenizer.chat_template")
            if not template:
                return None
            eos, bos = llama.token_eos(), llama.token_bos()
            text = llama._model.token_get_text
            self._formatters[id(llama)] = Jinja2ChatFormatter(
                template=template, eos_token=text(eos) if eos != -1 else "", bos_token=text(bos) if bos != -1 else "",
                stop_token_ids=[eos])
        return self._formatters[id(llama)]

    def prefix_tokens(self, llama, messages: list[dict]) -> list[int] | None:
        """The tokens of the chat prompt that do not depend on the last user turn, or None."""
        formatter = self._formatter(llama)
        if formatter is None or len(messages) < 2 or messages[-1]["role"] != "user":
            return None
        real = formatter(messages=messages)
        other = formatter(messages=[*messages[:-1], {"role": "user", "content": SENTINEL}])
        end = _common(real.prompt, other.prompt)
        if end == 0:
            return None
        tokens = llama.tokenize(real.prompt[:end].encode("utf-8"), add_bos=not real.added_special, special=True)
        return tokens if len(tokens) >= self.min_tokens else None

    # -- warming ------------------------------------------------------------------------------
    def warm(self, llama, tokens: list[int], label: str, progress: Progress | None = None) -> Warmed:
        n = len(tokens)
        live = _common(llama._input_ids.tolist(), tokens)
        if live >= n:
            return Warmed("memory", n)
        phash = prefix_hash(tokens)
        saved = self.store.load(self.model_hash, phash)
        if saved is not None and saved.tokens == tokens and self._restore(llama, tokens, saved.payload):
            return Warmed("disk", n)
        self._build(llama, tokens, live, progress)
        try:
            self.store.save(self.model_hash, phash, tokens, self._snapshot(llama), label)
        except OSError as exc:  # a full or read-only disk: answer anyway, build again next process
            log.warning("could not save the prompt prefix for %s: %s", label, exc)
        return Warmed("built", n)

    def _build(self, llama, tokens: list[int], live: int, progress: Progress | None) -> None:
        n = len(tokens)
        llama.n_tokens = live  # keep what the context already shares with the prefix
        for start in range(live, n, CHUNK):
            if progress:
                progress({"stage": "prefix", "done": start, "total": n})
            llama.eval(tokens[start:start + CHUNK])
        if progress:
            progress({"stage": "prefix", "done": n, "total": n})
        _mark_stale(llama)

    @staticmethod
    def _snapshot(llama) -> memoryview:
        import llama_cpp

        ctx = llama._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buf = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
        return memoryview(buf).cast("B")[:written]

    @staticmethod
    def _restore(llama, tokens: list[int], payload: memoryview) -> bool:
        import llama_cpp

        ctx = llama._ctx.ctx
        llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(ctx), True)
        llama.n_tokens = 0
        size = payload.nbytes
        buf = (ctypes.c_uint8 * size).from_buffer(payload)  # no copy: the file's bytes as read
        if not llama_cpp.llama_state_seq_set_data(ctx, buf, size, 0):
            llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(ctx), True)
            return False
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        _mark_stale(llama)
        return True


@contextmanager
def kept(llama) -> Iterator[None]:
    """The context as it was, put back after a call aside (a short translation between two steps): its KV
    cache and tokens, so the next step reuses what the last one evaluated instead of reading it again."""
    tokens = llama.input_ids[: llama.n_tokens].tolist()
    saved = PrefixCache._snapshot(llama) if tokens else None
    try:
        yield
    finally:
        if saved is not None and not PrefixCache._restore(llama, tokens, saved):
            log.warning("could not restore the context after a call aside; the next prompt is read again")


def _mark_stale(llama) -> None:
    """The logits no longer belong to a live decode of the full prompt: generate must evaluate again."""
    if hasattr(llama, "_requires_eval"):
        llama._requires_eval = True
