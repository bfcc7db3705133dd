"""Compose: the whole new file of a write_file decision, asked for in the next turn of the decision's own
conversation and answered as plain code in one fenced block.

Why a second turn: inside a JSON string every newline and quote of the file must be escaped, and that is
where a small model breaks the file. Plain code in a fence is what it has seen in training. The turn
continues the conversation the decision was made in (the goal, the files, the steps, the decision and its
reason), so an embedded model has all of that evaluated already and reads only the short request. The
request repeats the file's current text right before the answer, so the model edits it instead of
inventing a new one, and the latest failing test run, so it knows what the new file must fix. The answer
ends at the closing fence and is capped at a size that fits the file. A file given back unchanged while
the tests fail is asked for once more (the next turn would bring the same answer back).
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from wenshu.errors import WenshuError
from wenshu.prompts import render
from wenshu.tasks import control
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


def write_messages(turn: Turn, path: str, current: str | None, failure: str = "") -> list[BaseMessage]:
    """The decision's conversation, its answer, and the request for the file: the change, the latest failing
    test run and the file's current text come last, right where the model starts to write."""
    lang = language(path)
    if current is None:
        now = render("task_write_new", path=path).strip()
    else:
        now = render("task_write_current", path=path, language=lang, content=current.rstrip("\n")).strip()
    failing = render("task_write_failing", failure=failure.strip()).strip() if failure.strip() else ""
    reason = (turn.decision.reason or "the goal").rstrip(". ") + "."
    ask = render("task_write", path=path, reason=reason, failing=failing, now=now, language=lang)
    system, *rest = turn.messages
    # the system message without its prefix-cache mark: the cached prefix would now run to this turn, new every
    # time; the model still holds the whole conversation it just answered and reads only the new turn
    return [SystemMessage(system.content), *rest, AIMessage(turn.answer), HumanMessage(ask.strip())]


def compose(models, turn: Turn, ws: Workspace, task: TaskRecord, config: TaskConfig) -> Decision | Outcome:
    """The write's decision with its whole new file, or the step's outcome when the write is refused before
    the file is asked for (a test file, a path out of the project) or the answer holds no file."""
    d = turn.decision
    try:
        rel, current = writable(d, ws, task)
    except (WenshuError, OSError) as err:
        return refusal(err, d.target)
    last = control.last_test_run(task.steps)
    failing = last.summary if last is not None and last.outcome != "passed" else ""
    shown = current
    if current is not None:
        shown, cut = file_view(current, focus_words(task.goal, failing))
        if cut:  # the model sees part of it: the partial-overwrite rule applies
            task.partial = sorted({*task.partial, rel})
    messages = write_messages(turn, rel, shown, failing)
    budget = file_budget(current, config.file_tokens)
    raw = models.text("strong", messages, max_tokens=budget, stop=[CLOSE])
    content = code_of(raw)
    if failing and current is not None and content == code_of(current):  # greedy decoding would repeat it next turn
        again = render("task_write_same", path=rel, language=language(rel)).strip()
        said = AIMessage(f"```{language(rel)}\n{content}```")
        raw = models.text("strong", [*messages, said, HumanMessage(again)], max_tokens=budget, stop=[CLOSE])
        content = code_of(raw)
    if not content.strip():
        return invalid(f"the answer to writing {rel} held no file")
    return replace(d, content=content)
