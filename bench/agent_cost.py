"""`python -m bench agent_cost`: what a data question costs through the assistant against the pipeline directly
(issue 15's goal: at most 5 % more time), the same questions, the same model, both ways.

    python -m bench agent_cost --model embedded --limit 10 --out bench/results/agent_cost.json

The questions are the first turns of the demo set's dev half. Each is asked once through the data pipeline
(`Agent.ask`) and once through the assistant (`Assistant.ask`, whose rules route it to the same pipeline),
in alternating order (the first way of one question is the second of the next), each in a new
conversation, after one unmeasured answer to the same question, so that both ways find the same
evaluated prompt and cached result (without it one way of a pair took up to six times as long as the
other). Reported: the median and total wall time of each way, the assistant's extra time per question
(median and total, in percent), the assistant's own preparation (its `route` step: skill and tool
retrieval, the documents check, the rules) and whether each answer took the same route and SQL.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path


def add_arguments(p) -> None:
    p.add_argument("--model", choices=("embedded", "endpoint", "fake"), default="embedded")
    p.add_argument("--base-url"), p.add_argument("--model-name"), p.add_argument("--api-key")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--out", required=True)
    p.set_defaults(func=run)


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(args) -> int:
    from bench.demo_set import load_gold
    from bench.environment import bench_settings, code_commit
    from wenshu.agent.service import Agent
    from wenshu.assistant.service import Assistant
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.contracts import AgentRequest

    home = Path(tempfile.mkdtemp(prefix="wenshu-bench-agent-cost-"))
    args.candidates, args.semantic, args.ablate = 1, True, ""
    settings, label = bench_settings(args, home)
    store = open_store(settings)
    ensure_demo(settings, store)
    agent = Agent(settings, store)
    assistant = Assistant(settings, store, agent=agent)
    questions = [g["question"] for g in load_gold("dev") if not g.get("followup_of")][: args.limit]
    agent.ask(AgentRequest(message=questions[0]))  # the model loaded and the prefix prepared before timing
    records = []
    for n, question in enumerate(questions):
        route_ms: list[float] = []

        def on_event(event):
            if event.node == "route" and event.status == "ok":
                route_ms.append(event.ms or 0.0)

        # Unmeasured first: the embedded model reuses the evaluated prompt of its last call and the result cache
        # keeps the last result (one pair took 2.2 s one way and 13.4 s the other). After this run both measured
        # ways start from the same state: the same question just answered.
        agent.ask(AgentRequest(message=question))
        pipeline = lambda: _timed(lambda: agent.ask(AgentRequest(message=question)))  # noqa: E731
        through = lambda: _timed(lambda: assistant.ask(question, on_event=on_event))  # noqa: E731
        if n % 2 == 0:
            (direct, direct_s), (helped, helped_s) = pipeline(), through()
        else:
            (helped, helped_s), (direct, direct_s) = through(), pipeline()
        answer = helped.data
        records.append({"question": question, "direct_s": round(direct_s, 2), "assistant_s": round(helped_s, 2),
                        "extra_pct": round(100 * (helped_s / direct_s - 1), 1), "route": helped.route,
                        "route_ms": route_ms[0] if route_ms else None, "first": "pipeline" if n % 2 == 0 else "assistant",
                        "same_sql": answer is not None and answer.sql == direct.sql,
                        "llm_calls": [direct.usage.llm_calls, helped.usage.llm_calls]})  # fmt: skip
        print(f"{records[-1]['extra_pct']:+6.1f} %  {direct_s:6.2f} s  {helped_s:6.2f} s  {helped.route:5} {question}",
              flush=True)  # fmt: skip
    assistant.close()
    summary = summarize(records, label)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "commit": code_commit(), "records": records}, ensure_ascii=False,
                              indent=1), encoding="utf-8")  # fmt: skip
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


def summarize(records: list[dict], model: str) -> dict:
    direct, helped = sum(r["direct_s"] for r in records), sum(r["assistant_s"] for r in records)
    routes = [r["route_ms"] for r in records if r["route_ms"] is not None]
    return {"model": model, "n": len(records),
            "direct_median_s": statistics.median(r["direct_s"] for r in records),
            "assistant_median_s": statistics.median(r["assistant_s"] for r in records),
            "extra_median_pct": statistics.median(r["extra_pct"] for r in records),
            "extra_total_pct": round(100 * (helped / direct - 1), 1) if direct else None,
            "route_median_ms": statistics.median(routes) if routes else None,
            "data_route": sum(r["route"] == "data" for r in records),
            "same_sql": sum(r["same_sql"] for r in records),
            "same_model_calls": sum(r["llm_calls"][0] == r["llm_calls"][1] for r in records)}  # fmt: skip
