"""Execute one decision in the task's scratch copy through the workspace tools: every path confined to
the copy (`workspace.paths.Root`, links followed), commands from the allowlist without a shell and with a
time limit. A refusal or failure is the step's result (code + sentence), never an exception: the model
reads it and tries something else.

Beyond the workspace's own rules: paths outside the project (version control, caches, virtual
environments, .gitignore) are neither read nor written; test files are not written unless the goal allows
it (tasks/rules.py); a file shown only in part is not overwritten by something much shorter; a Python file
that does not parse is not written (the syntax error is the step's result, before any test runs). A write
that lands runs the tests (`test_after_write`), so its result says what it did to them."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from wenshu.errors import WenshuError
from wenshu.prompts import render
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.decide import Decision
from wenshu.tasks.endings import IgnoredPath, NotPython, PartialOverwrite, TestEditRefused
from wenshu.tasks.feedback import Signal, command_signal, is_test_command, signal_of_tests
from wenshu.tasks.perceive import code_under_test
from wenshu.tasks.record import TaskRecord
from wenshu.tasks.rules import may_write
from wenshu.workspace.commands import parse, run_command
from wenshu.workspace.files import read_text, write_text
from wenshu.workspace.ignore import Ignore
from wenshu.workspace.paths import Root


@dataclass(frozen=True)
class Outcome:
    ok: bool
    summary: str
    code: str | None = None
    failure: str | None = None
    outcome: str | None = None


@dataclass
class Workspace:
    """The user's folder (read only here), the task's scratch copy and its ignore rules."""

    original: Root
    work: Root
    ignore: Ignore


def execute(d: Decision, ws: Workspace, task: TaskRecord, config: TaskConfig) -> Outcome:
    try:
        if d.action == "read_file":
            return _read(d, ws, task)
        if d.action == "write_file":
            return _write(d, ws, task, config)
        if d.action == "run_command":
            return _run(d, ws, config)
        if d.action == "finish":
            return Outcome(True, "the tests now run in a clean copy")
        return invalid(d.reason)
    except (WenshuError, OSError) as err:
        return refusal(err, d.target)


def pointless(d: Decision, ws: Workspace, task: TaskRecord, shown: list[str]) -> str | None:
    """Why a decision would be refused or would show nothing new, said before it is taken so that the model
    chooses again within the same step: a write to a test file the goal keeps, a read of a file already
    shown whole. Other refusals (paths out of the folder, binary files) become the step's result."""
    try:
        if d.action == "write_file":
            writable(d, ws, task)
        elif d.action == "read_file" and _relative(ws, d.target) in shown:
            return render("task_shown", path=_relative(ws, d.target)).strip().rstrip(".")
    except TestEditRefused as err:
        return err.en.rstrip(".")  # the repair sentence goes on after it
    except (WenshuError, OSError):
        return None
    return None


def refusal(err: Exception, target: str) -> Outcome:
    """A refused or failed step's result: its code and sentence, and the failure the stuck detector counts."""
    if isinstance(err, WenshuError):
        return Outcome(False, f"{err.code}: {err.en}", err.code, f"{err.code}: {target}")
    return Outcome(False, f"tool_failed: {err}", "tool_failed", f"tool_failed: {target}")


def invalid(reason: str) -> Outcome:
    return Outcome(False, f"invalid: {reason}", "invalid_step", f"invalid: {reason}")


def _relative(ws: Workspace, target: str) -> str:
    """The project path of `target`, refused when outside the copy or not part of the project."""
    rel = ws.work.relative(ws.work.resolve(target))
    if ws.ignore(rel):
        raise IgnoredPath(target)
    return rel


def _touch(task: TaskRecord, rel: str) -> None:
    task.opened = [p for p in task.opened if p != rel] + [rel]


def _read(d: Decision, ws: Workspace, task: TaskRecord) -> Outcome:
    rel = _relative(ws, d.target)
    text = read_text(ws.work, rel)
    _touch(task, rel)
    return Outcome(True, f"read {rel} ({text.lines} lines{', cut' if text.truncated else ''})")


def writable(d: Decision, ws: Workspace, task: TaskRecord) -> tuple[str, str | None]:
    """(the project path a write targets, its current text or None for a new file), or the refusal raised:
    checked before the model is asked for the file."""
    rel = _relative(ws, d.target)
    existed = ws.original.resolve(rel).exists()
    if not may_write(task.goal, rel, existed=existed):
        raise TestEditRefused(rel, code_under_test(ws.work.path, rel))
    return rel, read_text(ws.work, rel).content if ws.work.resolve(rel).is_file() else None  # binary: NotText


def _parses(rel: str, content: str) -> None:
    if not rel.endswith(".py"):
        return
    try:
        ast.parse(content, filename=rel)
    except SyntaxError as err:
        raise NotPython(rel, err.lineno or 0, err.msg, (err.text or "").strip()) from err
    except ValueError as err:  # NUL bytes
        raise NotPython(rel, 0, str(err), "") from err


def _write(d: Decision, ws: Workspace, task: TaskRecord, config: TaskConfig) -> Outcome:
    rel, before = writable(d, ws, task)
    new_lines = d.content.count("\n") + (not d.content.endswith("\n") and bool(d.content))
    old_lines = (before or "").count("\n")
    if before is not None and rel in task.partial and new_lines < old_lines // 2:
        raise PartialOverwrite(rel, old_lines, new_lines)
    if before == d.content:
        return Outcome(True, f"{rel} unchanged (same content)", failure=f"unchanged: {rel}")
    _parses(rel, d.content)
    write_text(ws.work, rel, d.content)
    task.written = task.written + [rel] * (rel not in task.written)
    _touch(task, rel)
    added = removed = 0
    for line in difflib.ndiff((before or "").splitlines(), d.content.splitlines()):
        added += line.startswith("+ ")
        removed += line.startswith("- ")
    wrote = f"wrote {rel} ({new_lines} lines, +{added} -{removed})"
    if not config.test_after_write:
        return Outcome(True, wrote)
    r = run_command(ws.work, config.test_command, allowlist=[config.test_command], timeout_s=config.test_timeout_s,
                    path=config.path, env=dict(config.env))  # fmt: skip
    out = _tests(signal_of_tests(r, config.test_command, str(ws.work.path)))
    return Outcome(True, f"{wrote}, then {config.test_command}: {out.summary}", None, out.failure, out.outcome)


def _tests(signal: Signal) -> Outcome:
    ok = signal.outcome in ("passed", "failed", "no_tests")  # red tests are a result
    return Outcome(ok, signal.summary, None if ok else signal.outcome, signal.failure, signal.outcome)


def _run(d: Decision, ws: Workspace, config: TaskConfig) -> Outcome:
    r = run_command(ws.work, d.target, allowlist=list(config.allowlist), timeout_s=config.command_timeout_s,
                    path=config.path, env=dict(config.env))  # fmt: skip
    if is_test_command(parse(d.target)):
        return _tests(signal_of_tests(r, d.target, str(ws.work.path)))
    signal = command_signal(r)
    ok = signal.outcome == "passed"
    return Outcome(ok, signal.summary, None if ok else signal.outcome, signal.failure, signal.outcome)
