"""Compose: the whole new file of a write_file decision, asked for in the next turn of the decision's own
conversation and answered as plain code in one fenced block.

Why a second turn: inside a JSON string every newline and quote of the file must be escaped, and that is
where a small model breaks the file. Plain code in a fence is what it has seen in training. The turn
continues the conversation the decision was made in (the goal, the files, the steps, the decision and its
reason), so an embedded model has all of that evaluated already and reads only the short request. The
request repeats the file's current text right before the answer, so the model edits it instead of
inventing a new one. The answer ends at the closing fence and is capped at a size that fits the file.
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from wenshu.errors import WenshuError
from wenshu.prompts import render
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.decide import Decision, Turn
from wenshu.tasks.execute import Outcome, Workspace, invalid, refusal, writable
from wenshu.tasks.feedback import file_view, focus_words
from wenshu.tasks.record import TaskRecord

FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:^```|\Z)", re.S | re.M)
CLOSE = "\n```"  # where the answer stops
FLOOR = 384  # tokens for a new file, or on top of the current one


def language(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return {"py": "python", "yml": "yaml", "": "text"}.get(suffix, suffix)


def file_budget(current: str | None, cap: int) -> int:
    """Tokens for the new file: FLOOR plus about one and a half times the current file (code runs about three
    characters a token), at most `cap`: a model that loops stops early instead of filling the cap."""
    return min(cap, FLOOR + len(current or "") // 2)


def code_of(answer: str) -> str:
    """The file in a model's answer: the first fenced block (closed or not: the answer stops at its end),
    else the whole answer; with one final newline."""
    found = FENCE.search(answer or "")
    text = found.group(1) if found else (answer or "").strip("\n")
    return text.rstrip("\n") + "\n" if text.strip() else ""


def write_messages(turn: Turn, path: str, current: str | None) -> list[BaseMessage]:
    lang = language(path)
    if current is None:
        now = render("task_write_new", path=path).strip()
    else:
        now = render("task_write_current", path=path, language=lang, content=current.rstrip("\n")).strip()
    ask = render("task_write", path=path, reason=turn.decision.reason or "the goal", now=now, language=lang)
    return [*turn.messages, AIMessage(turn.answer), HumanMessage(ask.strip())]


def compose(models, turn: Turn, ws: Workspace, task: TaskRecord, config: TaskConfig) -> Decision | Outcome:
    """The write's decision with its whole new file, or the step's outcome when the write is refused before
    the file is asked for (a test file, a path out of the project) or the answer holds no file."""
    d = turn.decision
    try:
        rel, current = writable(d, ws, task)
    except (WenshuError, OSError) as err:
        return refusal(err, d.target)
    shown = current
    if current is not None:
        last_failure = next((s.summary for s in reversed(task.steps) if s.failure), "")
        shown, cut = file_view(current, focus_words(task.goal, last_failure))
        if cut:  # the model sees part of it: the partial-overwrite rule applies
            task.partial = sorted({*task.partial, rel})
    raw = models.text("strong", write_messages(turn, rel, shown), max_tokens=file_budget(current, config.file_tokens),
                      stop=[CLOSE])  # fmt: skip
    content = code_of(raw)
    if not content.strip():
        return invalid(f"the answer to writing {rel} held no file")
    return replace(d, content=content)
