"""A model's thinking, kept apart from its answer.

Reasoning models served behind an OpenAI-compatible endpoint send their thinking in one of two ways:

- as a separate field of each streamed delta (`reasoning_content`: DeepSeek, Qwen3 and vLLM's reasoning
  parsers; `reasoning`: vLLM's newer name, OpenRouter), read by `providers.endpoint_chat.EndpointChat`
  into the message's `additional_kwargs["reasoning_content"]`;
- inline, as `<think>…</think>` at the start of the content (Qwen3 or DeepSeek-R1 served without a
  reasoning parser), split off here by `ThinkSplitter`.

Either way the thinking goes to an `on_thinking` callback and never into the answer's text, so it is never
stored as the answer nor parsed as a step's JSON. A `<think>` anywhere but at the start is the answer's own text.
"""

from __future__ import annotations

from collections.abc import Callable

OPEN, CLOSE = "<think>", "</think>"
REASONING_FIELDS = ("reasoning_content", "reasoning")  # a delta's or a message's thinking, by server


def reasoning_of(fields: dict) -> str:
    """The thinking in an OpenAI-compatible delta or message (as a dict), or ""."""
    for name in REASONING_FIELDS:
        value = fields.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _held_back(text: str, marker: str) -> int:
    """How many characters at the end of `text` could be the start of `marker` (wait for the next chunk)."""
    for n in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-n:]):
            return n
    return 0


class ThinkSplitter:
    """Feed it an answer's chunks as they stream: a leading `<think>…</think>` goes to `on_thinking`, the rest
    to `on_token`; `answer` is the text without the thinking. `close()` once the stream ended."""

    def __init__(self, on_token: Callable[[str], None] | None = None,
                 on_thinking: Callable[[str], None] | None = None):
        self.on_token, self.on_thinking = on_token, on_thinking
        self.state = "start"  # start: it may still open with <think> | thinking | after: </think> | answer
        self.held = ""
        self.answer = ""
        self.thinking = ""

    @classmethod
    def split(cls, text: str) -> tuple[str, str]:
        """(thinking, answer) of a whole answer."""
        splitter = cls()
        splitter.feed(text)
        splitter.close()
        return splitter.thinking, splitter.answer

    def feed(self, chunk: str) -> None:
        self.held += chunk
        if self.state == "start":
            head = self.held.lstrip()
            if head.startswith(OPEN):
                self.state, self.held = "thinking", head[len(OPEN):]
            elif OPEN.startswith(head):  # nothing yet, or "<thi": wait
                return
            else:
                self.state = "answer"
        if self.state == "thinking":
            end = self.held.find(CLOSE)
            if end < 0:
                keep = _held_back(self.held, CLOSE)
                self._think(self.held[: len(self.held) - keep])
                self.held = self.held[len(self.held) - keep:]
                return
            self._think(self.held[:end])
            self.state, self.held = "after", self.held[end + len(CLOSE):]
        if self.state == "after":  # the blank lines between the thinking and the answer are neither
            self.held = self.held.lstrip()
            if not self.held:
                return
            self.state = "answer"
        self._say(self.held)
        self.held = ""

    def close(self) -> None:
        """The stream ended: what was held back is the answer's (a thought never closed stays thinking)."""
        if self.state == "thinking":
            self._think(self.held)
        else:
            self._say(self.held)
        self.held = ""

    def _think(self, text: str) -> None:
        if text:
            self.thinking += text
            if self.on_thinking is not None:
                self.on_thinking(text)

    def _say(self, text: str) -> None:
        if text:
            self.answer += text
            if self.on_token is not None:
                self.on_token(text)
