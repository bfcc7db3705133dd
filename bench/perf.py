"""Latency and footprint of the whole pipeline with the embedded model on demo questions.

Measures, per question, wall time (model load excluded), time inside model calls, and correctness
against the gold SQL; at the end, the median and p90 wall time, peak RSS and the share of wall time
spent outside the model. Writes `bench/results/perf_<name>.json`.
"""

from __future__ import annotations

import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from bench.demo_set import load_gold
from bench.scoring import QueryFailed, is_ordered, run_sql, same_result


def add_arguments(p) -> None:
    p.add_argument("--limit", type=int, default=20, help="number of questions (follow-ups keep their first turn)")
    p.add_argument("--out", default="bench/results/perf_embedded.json")
    p.set_defaults(func=run)


def _pick(gold: list[dict], limit: int) -> list[list[dict]]:
    """Conversations: a single question, or a first turn with its follow-up."""
    by_id = {g["id"]: g for g in gold}
    follow = {g["followup_of"]: g for g in gold if g.get("followup_of")}
    convs, used = [], set()
    for g in gold:
        if g["id"] in used or g.get("followup_of"):
            continue
        conv = [g] + ([follow[g["id"]]] if g["id"] in follow else [])
        used.update(x["id"] for x in conv)
        convs.append(conv)
        if sum(len(c) for c in convs) >= limit:
            break
    return [[by_id[x["id"]] for x in c] for c in convs]


def run(args) -> int:
    import os

    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.contracts import AgentRequest
    from wenshu.settings import Settings

    console = Console()
    model_path = Settings().resolved_model_path
    home = Path(tempfile.mkdtemp(prefix="wenshu-perf-"))
    os.environ["WENSHU_HOME"] = str(home)
    settings = Settings(model_path=model_path)
    store = open_store(settings)
    db = ensure_demo(settings, store)
    agent = Agent(settings, store)
    t0 = time.perf_counter()
    agent.models().model("strong").llama  # load once; excluded from per-question time
    load_s = time.perf_counter() - t0
    convs = _pick(load_gold(), args.limit)
    records = []
    with Progress(console=console) as bar:
        task = bar.add_task("questions", total=sum(len(c) for c in convs))
        for conv in convs:
            cid = None
            for item in conv:
                t = time.perf_counter()
                resp = agent.ask(AgentRequest(message=item["question"], conversation_id=cid))
                wall = time.perf_counter() - t
                cid = resp.conversation_id
                gold_rows = run_sql(db, item["sql"])
                try:
                    correct = bool(resp.sql) and resp.error is None and same_result(
                        run_sql(db, resp.sql), gold_rows, is_ordered(item["sql"]))
                except QueryFailed:
                    correct = False
                records.append({"id": item["id"], "question": item["question"], "wall_s": round(wall, 2),
                                "model_s": round(resp.usage.model_ms / 1000, 2), "llm_calls": resp.usage.llm_calls,
                                "prompt_tokens": resp.usage.prompt_tokens, "correct": correct,
                                "followup": bool(item.get("followup_of")), "sql": resp.sql})
                bar.advance(task)
    walls = sorted(r["wall_s"] for r in records)
    total_wall, total_model = sum(walls), sum(r["model_s"] for r in records)
    summary = {
        "questions": len(records),
        "model_load_s": round(load_s, 1),
        "median_s": round(statistics.median(walls), 2),
        "p90_s": round(walls[max(0, int(len(walls) * 0.9) - 1)], 2),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 2),
        "outside_model_share": round(1 - total_model / total_wall, 4) if total_wall else None,
        "correct": sum(r["correct"] for r in records),
        "command": f"python -m bench perf --limit {args.limit}",
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"summary": summary, "questions": records}, ensure_ascii=False, indent=1))
    for k, v in summary.items():
        console.print(f"{k:>22}: {v}")
    return 0
