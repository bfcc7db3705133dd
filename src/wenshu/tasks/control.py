"""Loop control, as pure functions of the steps so far: where the loop goes next, whether it is stuck,
and how the steps are shown to the model (the latest ones whole, older ones one line each)."""

from __future__ import annotations

import json

from wenshu.prompts import render
from wenshu.tasks.feedback import is_test_command
from wenshu.tasks.record import TaskStep
from wenshu.workspace.commands import parse

REPEATS = 3  # the same step, or the same failure, this many times in a row: stuck
MAX_LINE = 160


def decisions(steps: list[TaskStep]) -> list[TaskStep]:
    return [s for s in steps if s.action != "verify"]


def stuck(steps: list[TaskStep]) -> tuple[str, bool] | None:
    """(what repeats, is it a failure) when the agent repeats itself; None otherwise.

    - the same step: the last REPEATS decisions have the same action and target, unless each was a write
      that changed the file (rewriting a file until its tests pass is progress; the same failure after
      each rewrite is caught by the next rule);
    - the same failure: the last REPEATS failures after the first decision (tests, verify, refusals,
      unusable answers) are identical, whatever was done between them. The baseline test run does not
      count: it is the failure the task starts from."""
    made = decisions(steps)
    last = made[-REPEATS:]
    if len(last) == REPEATS and len({(s.action, s.target) for s in last}) == 1 and not all(map(_changed, last)):
        return f"{last[0].action} {last[0].target}".strip(), False
    first = next((i for i, s in enumerate(steps) if s.action != "verify"), len(steps))
    failures = [s.failure for s in steps[first:] if s.failure]
    if len(failures) >= REPEATS and len(set(failures[-REPEATS:])) == 1:
        return failures[-1].split("|")[0][:200], True
    return None


def _changed(step: TaskStep) -> bool:
    """A write that changed its file (an unchanged one carries the failure `unchanged: path`)."""
    return step.action == "write_file" and step.ok and not (step.failure or "").startswith("unchanged:")


def next_move(steps: list[TaskStep], step_limit: int) -> str:
    """"decide" | "verify" | an ending: solved, no_tests, test_command_failed, stuck, max_steps."""
    last = steps[-1] if steps else None
    if last is not None and last.action == "verify":
        if last.outcome == "broken":
            return "test_command_failed"
        if last.target == "finish" and last.outcome == "passed":
            return "solved"
        if last.target == "finish" and last.outcome == "no_tests":
            return "no_tests"
    if last is not None and last.action == "finish":
        return "verify"
    if stuck(steps):
        return "stuck"
    if len(decisions(steps)) >= step_limit:
        return "max_steps"
    return "decide"


def last_test_run(steps: list[TaskStep]) -> TaskStep | None:
    """The latest step that ran the tests: a verify, a write (the tests run after it), a test command."""
    for s in reversed(steps):
        ran = s.action in ("verify", "write_file") or (s.action == "run_command" and _tests(s.target))
        if ran and s.outcome in ("passed", "failed", "timeout"):
            return s
    return None


def _tests(command: str) -> bool:
    try:
        return is_test_command(parse(command))
    except ValueError:  # unbalanced quotes: refused when it ran
        return False


def needs_final_verify(steps: list[TaskStep]) -> bool:
    """A write after the last test run in a clean copy: its state is not known yet."""
    for s in reversed(steps):
        if s.action == "verify":
            return False
        if s.action == "write_file" and s.ok:
            return True
    return False


def one_line(step: TaskStep) -> str:
    summary = " ".join(step.summary.split())
    return render("task_step", n=step.n, action=step.action, target=step.target,
                  summary=summary[:MAX_LINE] + ("…" if len(summary) > MAX_LINE else "")).strip()


def whole(step: TaskStep) -> str:
    target = json.dumps({"target": step.target, "reason": step.reason}, ensure_ascii=False)
    return render("assistant_done", n=step.n, action=step.action, arguments=target, result=step.summary).strip()


def history(steps: list[TaskStep], keep_full: int) -> str:
    """Older steps one line each, the latest `keep_full` whole (their results fenced as data)."""
    if not steps:
        return "(none yet)"
    old, recent = steps[:-keep_full] if keep_full else steps, steps[-keep_full:] if keep_full else []
    return "\n".join([*(one_line(s) for s in old), *(whole(s) for s in recent)])


def note(steps: list[TaskStep]) -> str:
    """A nudge after a repeated step, a red verify, or tests that turned green."""
    made = decisions(steps)
    if len(made) >= 2 and (made[-1].action, made[-1].target) == (made[-2].action, made[-2].target) \
            and made[-1].action != "write_file" and steps[-1] is made[-1]:
        return render("task_repeat").strip()
    last = steps[-1] if steps else None
    if last is not None and last.action == "verify" and last.target == "finish" and last.outcome != "passed":
        return render("task_red").strip()
    if last is not None and last.outcome == "passed" and (
            last.action == "write_file" or (last.action == "run_command" and "tests passed" in last.summary)):
        return render("task_green").strip()  # a write's outcome is the test run after it
    return ""
