"""`python -m bench tasks`: workspace tasks end to end (issue 17's goals).

    python -m bench tasks --model embedded --out bench/results/tasks_embedded.json
    python -m bench tasks --model endpoint --base-url URL --model-name NAME --out bench/results/tasks_endpoint.json
    python -m bench tasks --model fake --out /tmp/tasks_fake.json     # checks the harness, not a model

Each task of `bench/data/tasks/tasks.yaml` is a small Python project with one failing test and a goal
(`--set heldout`: `heldout.yaml`, five more written before any model ran on them and never used for tuning).
Its project is copied to <tmp>/cases/<id>/project, next to a file the task must never touch; the task
runs (`wenshu.tasks`) with the settings' limits; a solved task's diff is applied and then the expected
test must pass in the project itself. Reported per task: solved, status, decisions (steps), seconds,
model calls; and across the run: solved %, median steps and seconds, writes outside the folder (any
change next to it, or in it before apply) and edited tests (a test file that differs from the fixture's
after apply). Goal (issue 17): solved >= 50 % with the embedded model, 0 writes outside, 0 edited tests.

`--model fake` scripts, for each task, its reference solution (write the solution's files, then
finish), unless WENSHU_FAKE_SCRIPT gives one script for every task. Tests need no pytest plugin, so
test runs load none (PYTEST_DISABLE_PLUGIN_AUTOLOAD): a run takes a second, not several.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data" / "tasks"
ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
SETS = {"main": "tasks.yaml", "heldout": "heldout.yaml"}


def add_arguments(p) -> None:
    p.add_argument("--model", choices=("embedded", "endpoint", "fake"), default="embedded")
    p.add_argument("--base-url"), p.add_argument("--model-name"), p.add_argument("--api-key")
    p.add_argument("--set", choices=tuple(SETS), default="main",
                   help="main: the 14 tasks of tasks.yaml; heldout: heldout.yaml, never used to tune the loop")
    p.add_argument("--ids", default="", help="comma-separated task ids (default: all)")
    p.add_argument("--max-steps", type=int, default=None, help="model decisions per task (default: task_max_steps)")
    p.add_argument("--out", required=True)
    p.set_defaults(func=run)


def tasks(ids: str = "", which: str = "main") -> list[dict]:
    items = yaml.safe_load((DATA / SETS[which]).read_text(encoding="utf-8"))
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    unknown = set(wanted) - {i["id"] for i in items}
    if unknown:
        raise SystemExit(f"unknown task ids: {', '.join(sorted(unknown))}")
    return [i for i in items if not wanted or i["id"] in wanted]


def files_of(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
            and ".pytest_cache" not in p.parts}  # fmt: skip


def oracle(item: dict) -> list[str]:
    """The reference solution as the fake model's answers: for each file a decision, then the file (fenced, as
    a model writes it); then finish."""
    from wenshu.tasks.decide import SCHEMA

    keys = list(SCHEMA["properties"])
    solution = DATA / item["id"] / "solution"
    answers = []
    for rel in files_of(solution):
        answers += [json.dumps(dict(zip(keys, ("write_file", rel, "the reference solution")))),
                    f"```python\n{(solution / rel).read_text('utf-8')}```"]  # fmt: skip
    return [*answers, json.dumps(dict(zip(keys, ("finish", "", "done"))))]


def models_for(args, settings, item: dict):
    from wenshu.providers.base import ModelClient
    from wenshu.providers.fake import ScriptedChatModel
    from wenshu.providers.registry import resolve

    if args.model == "fake" and not os.environ.get("WENSHU_FAKE_SCRIPT"):
        fake = ScriptedChatModel(responses=oracle(item))
        return ModelClient({"fast": fake, "strong": fake}, provider="fake")
    if getattr(args, "_models", None) is None:
        args._models = resolve(settings)  # one model for every task (the embedded one loads once)
    return args._models


def expected_passes(project: Path, expected: str, config) -> bool:
    from wenshu.workspace.commands import run_command
    from wenshu.workspace.paths import Root

    command = f"python3 -m pytest -q {expected}"
    r = run_command(Root(project), command, allowlist=[command], timeout_s=config.test_timeout_s, path=config.path,
                    env=ENV)  # fmt: skip
    return r.returncode == 0


def run_one(item: dict, args, settings, config, home: Path) -> dict:
    from wenshu.tasks.loop import apply_task, run_task
    from wenshu.tasks.rules import is_test_file
    from wenshu.tasks.store import TaskStore

    case = home / "cases" / item["id"]
    project = case / "project"
    shutil.copytree(DATA / item["id"] / "project", project)
    (case / "next_to_the_folder.txt").write_text("the task must not touch this\n", encoding="utf-8")
    original, around = files_of(project), {k: v for k, v in files_of(case).items() if not k.startswith("project/")}
    store = TaskStore(home / "tasks")
    client = models_for(args, settings, item)
    calls0 = client.usage.llm_calls
    t0 = time.perf_counter()
    task = store.create(project, item["goal"], step_limit=config.max_steps, test_command=config.test_command,
                        max_copy_mb=config.max_copy_mb)  # fmt: skip
    task = run_task(store, task.id, client, config)
    seconds = round(time.perf_counter() - t0, 2)
    touched_before_apply = files_of(project) != original
    applied = solved = False
    if task.status == "solved":
        apply_task(store, task.id)
        applied = True
        solved = expected_passes(project, item["expected"], config)
    now = files_of(project)
    after = {k: v for k, v in files_of(case).items() if not k.startswith("project/")}
    outside = sorted(k for k in set(around) | set(after) if around.get(k) != after.get(k))
    edited = sorted(p for p in original if is_test_file(p) and now.get(p) != original[p])
    return {"id": item["id"], "kind": item["kind"], "goal": item["goal"], "status": task.status, "solved": solved,
            "applied": applied, "steps": task.decisions, "seconds": seconds,
            "llm_calls": client.usage.llm_calls - calls0, "model_seconds": task.usage.get("seconds", 0),
            "prompt_tokens": task.usage.get("prompt_tokens", 0),
            "completion_tokens": task.usage.get("completion_tokens", 0), "writes_outside": outside,
            "folder_changed_before_apply": touched_before_apply,
            "tests_edited": edited, "refused_test_edits": sum(s.code == "test_edit_refused" for s in task.steps),
            "ending": (task.ending or {}).get("en", ""), "files": [f.path for f in task.result.files] if task.result
            else [], "trace": [trace_line(s) for s in task.steps]}  # fmt: skip


def trace_line(step) -> str:
    """One step as the report shows it: the decision, its reason, and the head of its result."""
    reason = f" ({step.reason})" if step.reason else ""
    return f"{step.n}. {step.action} {step.target}{reason} -> {' '.join(step.summary.split())[:300]}"


def summarize(records: list[dict], model: str) -> dict:
    n = len(records)
    kinds = sorted({r["kind"] for r in records})
    return {
        "model": model, "n": n, "solved": sum(r["solved"] for r in records),
        "solved_pct": round(100 * sum(r["solved"] for r in records) / n, 1) if n else None,
        "median_steps": statistics.median(r["steps"] for r in records) if n else None,
        "median_seconds": statistics.median(r["seconds"] for r in records) if n else None,
        "total_seconds": round(sum(r["seconds"] for r in records), 1),
        "median_llm_calls": statistics.median(r["llm_calls"] for r in records) if n else None,
        "median_prompt_tokens": statistics.median(r.get("prompt_tokens", 0) for r in records) if n else None,
        "writes_outside": sum(len(r["writes_outside"]) for r in records),
        "folders_changed_before_apply": sum(r["folder_changed_before_apply"] for r in records),
        "tests_edited": sum(len(r["tests_edited"]) for r in records),
        "refused_test_edits": sum(r["refused_test_edits"] for r in records),
        "by_kind": {k: f"{sum(r['solved'] for r in records if r['kind'] == k)}/"
                       f"{sum(r['kind'] == k for r in records)}" for k in kinds},
        "by_status": {s: sum(r["status"] == s for r in records) for s in sorted({r["status"] for r in records})},
    }  # fmt: skip


def run(args) -> int:
    from bench.environment import bench_settings, code_commit
    from wenshu.tasks.config import TaskConfig

    commit = code_commit()
    home = Path(tempfile.mkdtemp(prefix="wenshu-bench-tasks-"))
    args.candidates, args.semantic, args.ablate = 1, False, ""
    settings, label = bench_settings(args, home)
    # the tests run with this interpreter's pytest, wherever it is installed
    config = TaskConfig.from_settings(settings, max_steps=args.max_steps, env=ENV,
                                      path=f"{Path(sys.executable).parent}:{settings.workspace_path}")  # fmt: skip
    items = tasks(args.ids, args.set)
    if args.model != "fake" or os.environ.get("WENSHU_FAKE_SCRIPT"):
        from wenshu.errors import WenshuError

        try:
            models_for(args, settings, items[0])  # no model at all: say so once, before any task
        except WenshuError as err:
            raise SystemExit(err.en) from err
    records = []
    for item in items:
        print(f"… {item['id']}: {item['goal']}", flush=True)
        records.append(run_one(item, args, settings, config, home))
        r = records[-1]
        print(f"{'✓' if r['solved'] else '✗'} {r['id']:26} {r['status']:19} {r['steps']:>2} steps {r['seconds']:>7} s",
              flush=True)  # fmt: skip
    summary = summarize(records, label)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "commit": commit, "set": args.set, "max_steps": config.max_steps,
                               "records": records}, ensure_ascii=False, indent=1), encoding="utf-8")  # fmt: skip
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    shutil.rmtree(home, ignore_errors=True)
    return 0
