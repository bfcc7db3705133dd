"""`python -m bench route` end to end: the knowledge base holds the benchmark's corpus, the datasource is the
demo, each question is routed by the rules (no model call) and scored against what it asks; a held-out set's
wrong questions are never written out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.route import routed_right

ROOT = Path(__file__).resolve().parents[1]


def test_a_route_is_right_by_what_the_question_asks():
    assert routed_right("data", "data") and routed_right("data", "wide")
    assert not routed_right("data", "agent") and not routed_right("documents", "data")
    assert routed_right("documents", "agent") and routed_right("documents", "direct")


def test_the_bench_routes_documents_and_data_questions(tmp_path):
    out = tmp_path / "route.json"
    env = {**os.environ, "WENSHU_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "bench", "route", "--sets", "questions,demo_dev,heldout",
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    sets = json.loads(out.read_text())["sets"]
    assert sets["questions"]["expected"] == "documents" and sets["questions"]["questions"] >= 40
    assert sets["demo_dev"]["expected"] == "data" and sets["demo_dev"]["questions"] >= 20  # first turns only
    for name in ("questions", "demo_dev"):
        s = sets[name]
        assert s["right_pct"] >= 90.0, s["wrong"]  # the demo's documents and data questions go where they belong
        assert sum(s["by_route"].values()) == s["questions"]
    assert "wrong" not in sets["heldout"] and "wrong" in sets["demo_dev"]  # held out: counted, never listed
