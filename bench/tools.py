"""`python -m bench tools`: does the assistant take the right first step? (issue 15's tool-choice goal)

    python -m bench tools --model embedded --out bench/results/tool_choice.json

For each request of `bench/data/tool_choice.yaml` (Chinese and English) with every kind of tool there
(bench/tools_fixture.py: a workspace folder, two documents in the knowledge base, two MCP servers, one
of them a Tavily-compatible search offered as `web_search`), the host picks the turn's five tools and
the rules route first; a request routed to the data pipeline (whole or as sub-questions) counts as
`query_database` with the request as its question, a direct answer as `direct`; otherwise one step is
decoded by the model under the turn's schema (an endpoint: as a native tool call) and validated. Right
means the expected tool with arguments matching the expected patterns. Reported: right %, steps that
parse % (model steps only), per language and per expected tool, how often the expected tool was among
the five offered, median seconds.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data" / "tool_choice.yaml"


def add_arguments(p) -> None:
    p.add_argument("--model", choices=("embedded", "endpoint", "fake"), default="embedded")
    p.add_argument("--base-url"), p.add_argument("--model-name"), p.add_argument("--api-key")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", required=True)
    p.set_defaults(func=run)


def right(expected: dict, action: str, arguments: dict) -> bool:
    if action != expected["expect"]:
        return False
    return all(re.search(pattern, str(arguments.get(key, ""))) for key, pattern in (expected.get("args") or {}).items())


def run(args) -> int:
    from bench import tools_fixture
    from bench.environment import bench_settings, code_commit
    from wenshu.assistant.graph import choose_step
    from wenshu.assistant.service import Assistant
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.errors import WenshuError
    from wenshu.i18n import detect_lang

    commit = code_commit()
    home = Path(tempfile.mkdtemp(prefix="wenshu-bench-tools-"))
    args.candidates, args.semantic, args.ablate = 1, True, ""
    settings, label = bench_settings(args, home)
    store = open_store(settings)
    ensure_demo(settings, store)
    tools_fixture.mcp_config(settings.mcp_config_path)
    assistant = Assistant(settings, store)
    tools_fixture.documents(assistant.kb, home / "documents")
    workspace = tools_fixture.workspace(home / "workspace")
    items = yaml.safe_load(DATA.read_text(encoding="utf-8"))[: args.limit]
    records = []
    for item in items:
        print(f"… {item['request']}", flush=True)
        t0 = time.perf_counter()
        way, ctx = assistant.prepare(item["request"], workspace=workspace)
        parsed = None
        if way == "direct":
            action, arguments = "direct", {}
        elif way in ("data", "wide"):  # the pipeline answers, whole or as sub-questions, with no model step
            action, arguments = "query_database", {"question": item["request"]}
        else:
            try:
                d = choose_step(ctx, item["request"], [])
            except WenshuError as err:  # a model failure or timeout is this request's result, not the run's end
                d = {"invalid": err.code}
            parsed = "invalid" not in d
            action, arguments = (d.get("action") or "invalid"), d.get("arguments") or {}
            if not parsed:
                arguments = {"why": d["invalid"]}
            if action == "final":
                action = "direct"
        records.append({**item, "lang": detect_lang(item["request"]), "route": way, "action": action,
                        "arguments": arguments, "parsed": parsed, "right": right(item, action, arguments),
                        "skills": [s.name for s in ctx.skills], "offered": [t.name for t in ctx.tools],
                        "seconds": round(time.perf_counter() - t0, 2)})  # fmt: skip
        print(f"{'✓' if records[-1]['right'] else '✗'} {way:6} {action:15} {item['request']}", flush=True)
    assistant.close()
    summary = summarize(records, label)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "commit": commit, "records": records}, ensure_ascii=False, indent=1),
                   encoding="utf-8")  # fmt: skip
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


def summarize(records: list[dict], model: str) -> dict:
    def pct(xs):
        return round(100 * sum(xs) / len(xs), 1) if xs else None

    groups: dict[str, dict[str, list]] = {"lang": defaultdict(list), "expect": defaultdict(list)}
    for r in records:
        groups["lang"][r["lang"]].append(r["right"])
        groups["expect"][r["expect"]].append(r["right"])
    model_steps = [r["parsed"] for r in records if r["parsed"] is not None]
    tools = [r for r in records if r["expect"] != "direct" and r["route"] == "agent"]
    return {"model": model, "n": len(records), "right_pct": pct([r["right"] for r in records]),
            "model_steps": len(model_steps), "parsed_pct": pct(model_steps),
            "by_lang": {k: pct(v) for k, v in groups["lang"].items()},
            "by_expected_tool": {k: pct(v) for k, v in groups["expect"].items()},
            "expected_offered_pct": pct([r["expect"] in r.get("offered", []) for r in tools]),
            "median_s": statistics.median([r["seconds"] for r in records]) if records else None}  # fmt: skip
