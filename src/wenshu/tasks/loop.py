"""The task loop: perceive -> decide -> execute -> feedback, until the agent finishes and verify is green,
or an ending (tasks/control.py's pure `next_move` chooses). Every step is stored as it happens, so a
task can be watched, interrupted, resumed or discarded; the user's folder is only read.

    task = TaskStore(home / "tasks").create(folder, goal, ...)
    task = run_task(store, task.id, models, config, on_step=print)
    apply_task(store, task.id)      # writes the diff into the folder
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from wenshu.errors import WenshuError
from wenshu.tasks import control, diff
from wenshu.tasks.compose import compose
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.decide import decide
from wenshu.tasks.endings import (Applied, Interrupted, NothingToApply, NoTests, Solved, StepLimit, Stuck,
                                  TaskNotResumable, TaskNotSolved, TestCommandFailed)
from wenshu.tasks.execute import Outcome, Workspace, execute, pointless
from wenshu.tasks.feedback import focus_words
from wenshu.tasks.perceive import code_under_test, failing_tests, open_files, project_tree
from wenshu.tasks.record import RESUMABLE, TaskRecord, TaskResult, TaskStep
from wenshu.tasks.rules import asks_for_test, asks_to_change_tests
from wenshu.tasks.store import TaskStore
from wenshu.tasks.verify import verify
from wenshu.workspace.ignore import Ignore
from wenshu.workspace.paths import Root

OnStep = Callable[[TaskRecord, TaskStep], None]
log = logging.getLogger("wenshu.tasks")


def workspace_of(store: TaskStore, task: TaskRecord) -> Workspace:
    original = Root(task.workspace)
    return Workspace(original, Root(store.work(task.id)), Ignore(original.path))  # the folder's own .gitignore


def view(task: TaskRecord, ws: Workspace, config: TaskConfig) -> dict:
    """Everything the next decision is made from (decide.task_messages renders it)."""
    last_failure = next((s.summary for s in reversed(task.steps) if s.failure), "")
    files, partial, whole = open_files(ws.work, task.opened, budget_chars=config.files_chars,
                                       focus=focus_words(task.goal, last_failure))  # fmt: skip
    task.partial = sorted(set(task.partial) | set(partial))
    return {"goal": task.goal, "tree": project_tree(ws.work, budget_tokens=config.tree_tokens, ignore=ws.ignore),
            "test_command": config.test_command, "files": files, "commands": list(config.allowlist),
            "steps": control.history(task.steps, config.keep_full), "note": control.note(task.steps),
            "new_tests": asks_for_test(task.goal), "change_tests": asks_to_change_tests(task.goal),
            "shown": whole}  # fmt: skip


def _step(task: TaskRecord, action: str, target: str, reason: str, out: Outcome, t0: float) -> TaskStep:
    task.current = None
    step = TaskStep(n=len(task.steps) + 1, action=action, target=target, reason=reason, ok=out.ok,
                    summary=out.summary, code=out.code, failure=out.failure, outcome=out.outcome,
                    seconds=round(time.perf_counter() - t0, 2))  # fmt: skip
    task.steps = [*task.steps, step]
    return step


def _verify(task: TaskRecord, ws: Workspace, config: TaskConfig) -> Outcome:
    signal = verify(ws.original, ws.work, task.written, config)
    failed = signal.outcome not in ("passed", "no_tests")
    return Outcome(signal.outcome == "passed", signal.summary, signal.outcome if failed else None,
                   signal.failure if failed else None, signal.outcome)  # fmt: skip


def run_task(store: TaskStore, task_id: str, models, config: TaskConfig, *, on_step: OnStep | None = None,
             stop: Callable[[], bool] | None = None) -> TaskRecord:
    """Run (or resume) a task until it ends; each run allows `config.max_steps` more decisions."""
    task = store.load(task_id)
    if task.status not in RESUMABLE:
        raise TaskNotResumable(task.id, task.status)
    ws = workspace_of(store, task)
    task.status, task.ending, task.result = "running", None, None
    task.step_limit = task.decisions + config.max_steps
    store.save(task)
    meter, before = models.usage, vars(models.usage).copy()

    def taking(action: str, target: str, reason: str = "") -> None:
        """Store the step about to be taken, so a watcher sees the decision before its result."""
        task.current = {"n": len(task.steps) + 1, "action": action, "target": target, "reason": reason}
        store.save(task)

    def record(action: str, target: str, reason: str, out: Outcome, t0: float) -> None:
        step = _step(task, action, target, reason, out, t0)
        store.save(task)
        if on_step is not None:
            on_step(task, step)

    try:
        if config.baseline and not task.steps:
            t0 = time.perf_counter()
            taking("verify", "baseline")
            first = _verify(task, ws, config)
            # the failing tests and the code they import: what a programmer opens first (the code shown first)
            task.opened = [*task.opened, *failing_tests(ws.work.path, first.summary),
                           *code_under_test(ws.work.path, first.summary)]  # fmt: skip
            record("verify", "baseline", "", first, t0)
        while True:
            if stop is not None and stop():
                task.end("interrupted", Interrupted())
                break
            move = control.next_move(task.steps, task.step_limit)
            t0 = time.perf_counter()
            if move == "decide":
                seen = view(task, ws, config)
                turn = decide(models, seen, max_tokens=config.decision_tokens,
                              check=lambda d: pointless(d, ws, task, seen["shown"]))  # fmt: skip
                d = turn.decision
                taking(d.action, d.target, d.reason)
                ready = compose(models, turn, ws, task, config) if d.action == "write_file" else d  # the file
                out = ready if isinstance(ready, Outcome) else execute(ready, ws, task, config)
                record(d.action, d.target, d.reason, out, t0)
            elif move == "verify":
                taking("verify", "finish")
                record("verify", "finish", "", _verify(task, ws, config), t0)
            else:
                _end(task, ws, config, move, record, taking)
                break
    except KeyboardInterrupt:
        task.end("interrupted", Interrupted())
        raise
    except WenshuError as err:  # the model failed or timed out: the task can be resumed
        task.end("failed", err)
    finally:
        task.current = None
        task.usage = {k: round(task.usage.get(k, 0) + v - before.get(k, 0), 2) for k, v in vars(meter).items()}
        task.result = result_of(task, ws)
        store.save(task)
    return task


def run_unattended(store: TaskStore, task_id: str, models: Callable[[], object], config: TaskConfig,
                   stop: Callable[[], bool] | None = None) -> None:
    """run_task where nobody waits for it (a server thread, a queue worker; `models()` opens the model): an
    unexpected failure (or no model at all) ends the task as failed, resumable, with its message."""
    try:
        run_task(store, task_id, models(), config, stop=stop)
    except Exception as err:
        if not isinstance(err, WenshuError):
            log.exception("workspace task %s failed", task_id)
        task = store.load(task_id)
        if task.status in ("queued", "running"):
            task.end("failed", err if isinstance(err, WenshuError) else WenshuError())
            store.save(task)


def _end(task: TaskRecord, ws: Workspace, config: TaskConfig, move: str, record, taking) -> None:
    repeated = control.stuck(task.steps)  # before a final verify adds a step
    if move in ("stuck", "max_steps") and control.needs_final_verify(task.steps):
        taking("verify", "final")
        record("verify", "final", "", _verify(task, ws, config), time.perf_counter())
    if move == "solved":
        task.end("solved", Solved(len(diff.changes(ws.original, ws.work, task.written))))
    elif move == "no_tests":
        task.end("no_tests", NoTests(config.test_command))
    elif move == "test_command_failed":
        task.end("test_command_failed", TestCommandFailed(config.test_command, task.steps[-1].summary))
    elif move == "stuck":
        what, same_error = repeated
        task.end("stuck", Stuck(what, control.REPEATS, same_error))
    else:
        task.end("max_steps", StepLimit(task.decisions))


def result_of(task: TaskRecord, ws: Workspace) -> TaskResult:
    found = diff.changes(ws.original, ws.work, task.written)
    last = next((s.outcome for s in reversed(task.steps) if s.action == "verify"), None)
    return TaskResult(files=[c for c, _, _ in found], diff=diff.unified(found), verify=last,
                      tests_edited=diff.edited_tests(found, task.goal))  # fmt: skip


def apply_task(store: TaskStore, task_id: str, *, force: bool = False) -> TaskRecord:
    """Write the task's changes into the user's folder: a solved task, or any ended one with `force`."""
    task = store.load(task_id)
    if task.status == "applied":
        raise NothingToApply(task.id)
    if task.status != "solved" and not (force and task.status != "running"):
        raise TaskNotSolved(task.id, task.status)
    ws = workspace_of(store, task)
    written = diff.apply(ws.original, ws.work, task.written, store.manifest(task.id))
    if not written:
        raise NothingToApply(task.id)
    task.end("applied", Applied(written))
    store.save(task)
    return task
