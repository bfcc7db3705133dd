"""What the assistant streams while it works, as the same `Event`s the data pipeline emits (contracts.Event),
so the CLI, the SSE stream and the web UI's steps panel show them unchanged:

- `node` "route" (the rules' choice), "decide" (one model step: the action it chose, or why it was sent back);
- `node` "tool", started with `{tool, arguments}` and finished with `{tool, detail}`, a short summary of the
  result (outcome `ok`, or `error` for a refusal or failure);
- `token`: the final answer's text as the model writes it. A step is one JSON object; `AnswerTokens` reads
  the `"answer"` string of a `{"action": "final", ...}` step out of the streamed JSON, escapes decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from wenshu.contracts import Event

SUMMARY_CHARS = 160
_FINAL = re.compile(r'"action"\s*:\s*"final"')
_ANSWER = re.compile(r'"answer"\s*:\s*"')
_NONE_FOUND = re.compile(r'"found"\s*:\s*false')  # the final answer says no passage answers


def summary(result: str) -> str:
    """A tool result in one short line, for the steps panel."""
    text = " ".join((result or "").split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def tool_started(name: str, arguments: dict) -> Event:
    return Event(type="node", node="tool", status="started", data={"tool": name, "arguments": arguments})


def tool_finished(name: str, result: str, ok: bool, ms: float) -> Event:
    return Event(type="node", node="tool", status="ok" if ok else "error", ms=ms,
                 data={"tool": name, "detail": summary(result)})


def _string_prefix(raw: str, start: int) -> str:
    """The decoded part of a JSON string that begins at `start`, up to its closing quote or to the last
    complete character (an escape cut in half waits for the next chunk)."""
    i, n = start, len(raw)
    while i < n and raw[i] != '"':
        if raw[i] == "\\":
            width = 6 if raw[i + 1 : i + 2] == "u" else 2
            if i + width > n:
                break
            i += width
        else:
            i += 1
    try:
        text = json.loads('"' + raw[start:i] + '"')
    except json.JSONDecodeError:  # an invalid escape: the step fails validation and is repaired
        return ""
    return text[:-1] if text and "\ud800" <= text[-1] <= "\udbff" else text  # half of a surrogate pair waits


class AnswerTokens:
    """Feed it a step's raw chunks; it calls `emit` with each new piece of a final answer's text."""

    def __init__(self, emit: Callable[[str], None]):
        self.emit = emit
        self.raw = ""
        self.sent = 0

    def feed(self, chunk: str) -> None:
        self.raw += chunk
        answer = _ANSWER.search(self.raw)
        if answer is None or not _FINAL.search(self.raw) or _NONE_FOUND.search(self.raw, 0, answer.start()):
            return  # not a final answer (yet), or one the host replaces: no passage answers (graph.choose_step)
        text = _string_prefix(self.raw, answer.end())
        if len(text) > self.sent:
            self.emit(text[self.sent :])
            self.sent = len(text)

