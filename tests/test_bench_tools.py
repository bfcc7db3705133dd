"""`python -m bench tools` end to end with the scripted fake model: the rules' routes count without a
model call, model steps are parsed and scored against the expected tool and argument patterns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from bench.tools import DATA, right

ROOT = Path(__file__).resolve().parents[1]


def test_the_request_set_covers_every_tool_in_both_languages():  # MCP tools are named <server>__<tool>
    items = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    assert len(items) >= 60
    expected = {i["expect"] for i in items}
    assert expected == {"query_database", "list_files", "read_file", "write_file", "run_command", "direct",
                        "search_documents", "web_search", "office__search_tickets", "office__create_ticket",
                        "office__send_message"}  # documents, MCP tools and web search (bench/tools_fixture.py)
    langs = {(i["expect"], any("\u4e00" <= c <= "\u9fff" for c in i["request"])) for i in items}
    assert all((e, zh) in langs for e in expected for zh in (True, False))


def test_scoring_needs_the_tool_and_matching_arguments():
    item = {"expect": "read_file", "args": {"path": "README\\.md"}}
    assert right(item, "read_file", {"path": "README.md"})
    assert not right(item, "read_file", {"path": "notes.md"}) and not right(item, "list_files", {"path": "README.md"})


def test_the_bench_runs_with_the_fake_model(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": json.dumps({"action": "list_files", "arguments": {"path": "."}})}))
    env = {**os.environ, "WENSHU_FAKE_SCRIPT": str(script), "WENSHU_HOME": str(tmp_path / "home")}
    out = tmp_path / "tools.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "tools", "--model", "fake", "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    s = data["summary"]
    assert s["n"] >= 60 and s["model_steps"] > 0
    steps = [r for r in data["records"] if r["parsed"] is not None]  # the fake always says list_files:
    assert all(r["parsed"] == ("list_files" in r["offered"]) for r in steps)  # valid only where it was offered
    by = {(r["request"], r["route"], r["action"]) for r in data["records"]}
    assert ("你好", "direct", "direct") in by
    assert ("How many paid orders were there last week?", "data", "query_database") in by
    assert ("What files are in my project?", "agent", "list_files") in by
    assert s["by_expected_tool"]["direct"] == 100.0 and s["by_expected_tool"]["write_file"] == 0.0
    offered = {t for r in data["records"] for t in r["offered"]}
    assert {"search_documents", "web_search", "office__create_ticket"} <= offered  # every kind of tool was there


def test_agent_cost_summarizes_both_ways():
    from bench.agent_cost import summarize

    records = [{"direct_s": 10.0, "assistant_s": 10.5, "extra_pct": 5.0, "route_ms": 40.0, "route": "data",
                "same_sql": True, "llm_calls": [1, 1]},
               {"direct_s": 20.0, "assistant_s": 19.0, "extra_pct": -5.0, "route_ms": 60.0, "route": "agent",
                "same_sql": False, "llm_calls": [1, 2]}]
    s = summarize(records, "fake")
    assert s["extra_total_pct"] == -1.7 and s["extra_median_pct"] == 0.0 and s["route_median_ms"] == 50.0
    assert (s["data_route"], s["same_sql"], s["same_model_calls"]) == (1, 1, 1)
