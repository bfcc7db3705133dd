"""`wenshu task run|resume|list|show|apply|discard`: workspace tasks (docs/tasks.md).

    wenshu task run --workspace ./shop "make the failing test pass" [--apply] [--max-steps N] [--json]

The agent works on a copy of the folder; the folder changes only with --apply (after the tests passed in
a clean copy) or `wenshu task apply ID`. Exit code 0 when the task is solved (or applied), 1 otherwise.
"""

from __future__ import annotations

from pathlib import Path

import typer

from wenshu.cli.common import console, guarded, settings, ui_lang

app = typer.Typer(help="Workspace tasks: reach a goal in a folder, verified by its tests.", no_args_is_help=True)


def _store():
    from wenshu.tasks.store import TaskStore

    return TaskStore(settings().home / "tasks")


def _config(max_steps: int | None):
    from wenshu.tasks.config import TaskConfig

    return TaskConfig.from_settings(settings(), max_steps=max_steps)


def _show_step(task, step) -> None:
    mark = "✓" if step.ok else "✗"
    head = f"{step.n}. {mark} {step.action} {step.target}".rstrip()
    why = f" — {step.reason}" if step.reason else ""
    console.print(f"[bold]{head}[/]{why}", highlight=False, soft_wrap=True)
    console.print(f"[dim]{step.summary}[/]", highlight=False, soft_wrap=True)


def _finish(task, lang: str, as_json: bool, apply: bool) -> None:
    from wenshu.tasks.loop import apply_task

    if apply and task.status == "solved":
        task = apply_task(_store(), task.id)
    if as_json:
        print(task.model_dump_json())
    else:
        if task.result and task.result.diff and task.status != "applied":
            console.print(task.result.diff, highlight=False, markup=False, soft_wrap=True)
        console.print(f"[bold]{task.message(lang)}[/] [dim]({task.status}, task {task.id})[/]", highlight=False,
                      soft_wrap=True)  # fmt: skip
        if task.status == "solved" and not apply:
            console.print(f"[dim]wenshu task apply {task.id}[/]", highlight=False)
    if task.status not in ("solved", "applied"):
        raise SystemExit(1)


def _run(task_id: str, lang: str, as_json: bool, apply: bool, max_steps: int | None) -> None:
    from wenshu.providers.registry import resolve
    from wenshu.tasks.loop import run_task

    store = _store()
    try:
        task = run_task(store, task_id, resolve(settings()), _config(max_steps),
                        on_step=None if as_json else _show_step)  # fmt: skip
    except KeyboardInterrupt:
        task = store.load(task_id)
        console.print(f"\n[bold]{task.message(lang)}[/] [dim](task {task.id})[/]", highlight=False, soft_wrap=True)
        raise SystemExit(130) from None
    _finish(task, lang, as_json, apply)


def run(
    goal: str = typer.Argument(..., help="What to reach, e.g. 'make the failing test pass'."),
    workspace: Path = typer.Option(..., "--workspace", "-w", help="The project folder (it changes only on apply)."),
    apply: bool = typer.Option(False, "--apply", help="Write the changes into the folder once the tests pass."),
    max_steps: int = typer.Option(None, "--max-steps", min=1, help="Most model decisions (default: task_max_steps)."),
    as_json: bool = typer.Option(False, "--json", help="Print the task (steps, ending, diff) as JSON."),
) -> None:
    """Start a task in a copy of the folder and run it until the tests pass or it ends."""
    lang = ui_lang(goal)
    with guarded(lang, as_json):
        config = _config(max_steps)
        task = _store().create(workspace, goal, step_limit=config.max_steps, test_command=config.test_command,
                               max_copy_mb=config.max_copy_mb)  # fmt: skip
        if not as_json:
            console.print(f"[dim]task {task.id} · {task.workspace}[/]", highlight=False)
        _run(task.id, lang, as_json, apply, max_steps)


def resume(
    task_id: str = typer.Argument(..., help="The task's id (`wenshu task list`)."),
    apply: bool = typer.Option(False, "--apply", help="Write the changes into the folder once the tests pass."),
    max_steps: int = typer.Option(None, "--max-steps", min=1, help="More model decisions (default: task_max_steps)."),
    as_json: bool = typer.Option(False, "--json", help="Print the task as JSON."),
) -> None:
    """Continue an interrupted, failed or step-limited task where it stopped."""
    lang = ui_lang()
    with guarded(lang, as_json):
        _run(task_id, ui_lang(_store().load(task_id).goal), as_json, apply, max_steps)


def list_tasks(as_json: bool = typer.Option(False, "--json", help="Print the tasks as JSON.")) -> None:
    """The tasks kept in WENSHU_HOME/tasks, newest first."""
    import json

    with guarded(ui_lang(), as_json):
        tasks = _store().list()
        if as_json:
            print(json.dumps([{"id": t.id, "status": t.status, "goal": t.goal, "workspace": t.workspace,
                               "steps": t.decisions} for t in tasks], ensure_ascii=False))  # fmt: skip
            return
        for t in tasks:
            console.print(f"{t.id}  {t.status:<19} {t.decisions:>2} steps  {t.workspace}  {t.goal[:60]}",
                          highlight=False, markup=False)  # fmt: skip
        if not tasks:
            console.print("[dim](no tasks)[/]")


def show(task_id: str = typer.Argument(...), as_json: bool = typer.Option(False, "--json")) -> None:
    """A task's steps, ending and diff."""
    with guarded(ui_lang(), as_json):
        task = _store().load(task_id)
        if as_json:
            print(task.model_dump_json())
            return
        console.print(f"[bold]{task.goal}[/] [dim]({task.workspace})[/]", highlight=False)
        for step in task.steps:
            _show_step(task, step)
        if task.result and task.result.diff:
            console.print(task.result.diff, highlight=False, markup=False, soft_wrap=True)
        console.print(f"{task.message(ui_lang(task.goal))} [dim]({task.status})[/]", highlight=False)


def apply_cmd(
    task_id: str = typer.Argument(...),
    force: bool = typer.Option(False, "--force", help="Apply even though the tests did not pass."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Write a task's changes into its folder (a solved task; any ended one with --force)."""
    from wenshu.tasks.loop import apply_task

    with guarded(ui_lang(), as_json):
        task = apply_task(_store(), task_id, force=force)
        print(task.model_dump_json()) if as_json else console.print(task.message(ui_lang(task.goal)), highlight=False)


def discard(task_id: str = typer.Argument(...), as_json: bool = typer.Option(False, "--json")) -> None:
    """Remove a task and its scratch copy; the folder itself is left as it is."""
    from wenshu.tasks.endings import Discarded

    lang = ui_lang()
    with guarded(lang, as_json):
        _store().discard(task_id)
        print('{"discarded": true}') if as_json else console.print(Discarded(task_id).message(lang), highlight=False)


app.command("run")(run)
app.command("resume")(resume)
app.command("list")(list_tasks)
app.command("show")(show)
app.command("apply")(apply_cmd)
app.command("discard")(discard)
