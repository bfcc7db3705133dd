"""`python -m bench report bench/results/*.json`: the Markdown tables that go into the README.

One row per (set, mode, model) from each file's `summary`, then the error classes per row, so the
README shows both the accuracy and where the wrong answers come from. The command that produced
each file is listed under the tables.
"""

from __future__ import annotations

import json
from pathlib import Path

FIELDS = ("set", "mode", "model", "n", "accuracy", "median_s", "p90_s", "tokens_per_question")
HEADER = ("set", "mode", "model", "questions", "accuracy %", "median s", "p90 s", "tokens / question")


def add_arguments(p) -> None:
    p.add_argument("files", nargs="+", help="results files written by `python -m bench sql`")
    p.set_defaults(func=run)


def _row(cells) -> str:
    return "| " + " | ".join("—" if c is None else str(c) for c in cells) + " |"


def render(paths: list[Path]) -> str:
    rows, errors, commands, agree = [], [], [], []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("summary"), list):
            continue  # not an accuracy results file (perf, guard, ... have their own shape)
        for s in data["summary"]:
            cells = [s.get(k) for k in FIELDS]
            if s.get("candidates"):
                cells[1] = f"{s['mode']}, vote of {s['candidates']}"
            rows.append(_row(cells))
            classes = (data.get("breakdown") or {}).get(s["mode"], {}).get("error_classes", {})
            wrong = ", ".join(f"{k} {v}" for k, v in classes.items() if k != "ok") or "none"
            errors.append(_row((s["set"], cells[1], wrong)))
        a = data.get("agreement")
        if a:
            only = [f"{a[k]} ({a[k + '_pct']} %)" for k in ("pipeline_only", "baseline_only")]
            agree.append(_row((data["summary"][0]["set"], a["n"], a["both_right"], *only, a["both_wrong"])))
        if data.get("command"):
            at = f" (commit {data['commit']})" if data.get("commit") else ""
            commands.append(f"- `{data['command']}` → `{path.as_posix()}`{at}")
    lines = [_row(HEADER), _row(["---"] * len(HEADER)), *rows, "",
             _row(("set", "mode", "wrong answers by class")), _row(("---",) * 3), *errors]  # fmt: skip
    if agree:
        head = ("set", "questions", "both right", "only the pipeline right", "only the baseline right", "both wrong")
        lines += ["", _row(head), _row(("---",) * len(head)), *agree]
    if commands:
        lines += ["", "Produced by:", *commands]
    return "\n".join(lines)


def run(args) -> int:
    print(render([Path(f) for f in args.files]))
    return 0
