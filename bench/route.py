"""`python -m bench route`: does the assistant send documents questions to the documents and data questions to
the data? The rules' route only (issue 16: one turn can use both; no model call, a few minutes for all sets).

    python -m bench route --out bench/results/route.json
    python -m bench route --model embedded   # the chat model also chooses where the rules cannot tell

With `--model fake` (the default) only the rules route; with `--model embedded` the chat model chooses between
the data and the documents where the rules cannot tell (assistant/source.py: reason `source` when it chose the
documents), as `wenshu assist` does; the translation of documents questions is left out (it does not route).

The knowledge base holds the `bench kb` corpus and the datasource is the demo database, as for `bench kb
--answers`. A knowledge-base question (bench/data/kb: `questions` and `dev2` for development, `val` and `val2` for
validation, `heldout` report only) is routed right when it does not go straight to the data pipeline (route `agent`, or `direct`
for none); a first-turn data question of the demo sets (demo_dev, biz_dev, biz2, biz3, para_en, biz4_dev,
biz5, biz6, biz7, biz8, biz9, biz10, biz11, biz12, biz13, biz14, biz15, biz16, biz17, biz18, biz19, biz20, biz21, biz22, biz23, biz24, biz25, biz26, biz27, biz28, biz29, biz30, biz31 for development; demo_test, biz_val and biz4_val report only) is routed right when it goes to the data (route
`data` or `wide`). Reported per set: the share routed right and, per route and reason, how many; the wrong ones'
questions only for development sets (a held-out question is never printed or stored).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

from bench.datasets import role_of
from bench.kb import NOT_READ

KB_SETS = ("questions", "dev2", "val", "val2", "heldout")
DATA_SETS = ("demo_dev", "biz_dev", "biz2", "biz3", "para_en", "biz4_dev", "biz5", "biz6", "biz7", "biz8", "biz9",
             "biz10", "biz11", "biz12", "biz13", "biz14", "biz15", "biz16", "biz17", "biz18", "biz19", "biz20", "biz21", "biz22", "biz23", "biz24", "biz25", "biz26", "biz27", "biz28", "biz29", "biz30", "biz31", "demo_test", "biz_val",
             "biz4_val")
# wrong questions never printed: the KB sets named in bench.kb and the data sets whose role is not development
HELD_OUT = NOT_READ | {s for s in DATA_SETS if role_of(s) in ("validation", "test")}


def add_arguments(p) -> None:
    p.add_argument("--sets", default=",".join(KB_SETS + DATA_SETS), help="comma-separated sets (default: all)")
    p.add_argument("--out", default="bench/results/route.json")
    p.add_argument("--model", choices=["fake", "embedded"], default="fake",
                   help="fake: the rules alone; embedded: the chat model chooses where the rules cannot tell")
    p.set_defaults(func=run)


def questions_of(name: str, demo_db: Path) -> tuple[str, list[str]]:
    """(expected kind "documents" | "data", the set's questions)."""
    from bench.datasets import resolve_set
    from bench.kb import QUESTION_SETS

    if name in KB_SETS:
        data = yaml.safe_load(QUESTION_SETS[name].read_text(encoding="utf-8"))
        return "documents", [q["q"] for q in data["questions"] if q.get("doc")]
    items = resolve_set(name, db_dir=None, tables=None, demo_db=demo_db)[1]
    return "data", [i.question for i in items if not i.followup_of]


def routed_right(expected: str, way: str) -> bool:
    return way in ("data", "wide") if expected == "data" else way not in ("data", "wide")


def score_set(assistant, name: str, expected: str, questions: list[str]) -> dict:
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        way, ctx = assistant.prepare(q)
        rows.append({"q": q, "route": way, "reason": ctx.reason, "right": routed_right(expected, way),
                     "seconds": time.perf_counter() - t0})
    n = max(1, len(rows))
    out = {"expected": expected, "questions": len(rows), "right_pct": round(100 * sum(r["right"] for r in rows) / n, 1),
           "by_route": dict(Counter(f"{r['route']}/{r['reason']}" for r in rows).most_common()),
           "max_seconds": round(max((r["seconds"] for r in rows), default=0.0), 2)}
    if name not in HELD_OUT:
        out["wrong"] = [f"{r['route']}/{r['reason']}: {r['q']}" for r in rows if not r["right"]]
    return out


def run(args) -> int:
    from bench.kb_corpus import render_corpus
    from bench.environment import bench_settings, code_commit
    from wenshu.assistant.service import Assistant
    from wenshu.bootstrap import ensure_demo, open_store

    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = sorted(set(names) - set(KB_SETS + DATA_SETS))
    if unknown:
        raise SystemExit(f"Unknown set(s) {', '.join(unknown)}: use {', '.join(KB_SETS + DATA_SETS)}.")
    results: dict = {"commit": code_commit(), "model": args.model, "sets": {}}
    with tempfile.TemporaryDirectory(prefix="wenshu-bench-route-") as tmp:
        args.candidates, args.semantic, args.ablate = 1, True, ""
        settings, _ = bench_settings(args, Path(tmp) / "home")
        settings = settings.model_copy(update={"kb_summaries": False, "kb_translate_queries": False,
                                               "assistant_source_model": args.model != "fake"})
        store = open_store(settings)
        demo_db = ensure_demo(settings, store)
        with Assistant(settings, store) as assistant:
            assistant.kb.add(render_corpus(Path(tmp) / "corpus"))
            for name in names:
                t0 = time.perf_counter()
                expected, questions = questions_of(name, demo_db)
                results["sets"][name] = score_set(assistant, name, expected, questions)
                results["sets"][name]["seconds"] = round(time.perf_counter() - t0, 1)
        store.close()
    Path(args.out).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, s in results["sets"].items():
        print(f"{name:10} {s['expected']:9} {s['questions']:3} questions  routed right {s['right_pct']:5.1f} %  "
              f"{s['by_route']}")
        for line in s.get("wrong", []):
            print(f"    wrong  {line}")
    return 0
