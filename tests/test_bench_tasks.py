"""`python -m bench tasks`: every fixture project really has its failing test and a reference fix that
turns the whole suite green without touching a test; the bench runs end to end with the fake model
(the reference fixes: all solved) and with a hostile script (tries to edit the tests: nothing solved,
every edit refused, no test edited, nothing written outside the folder)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.tasks import DATA, ENV, files_of, tasks
from tasks_support import PATH
from wenshu.tasks.rules import is_test_file
from wenshu.workspace.commands import run_command
from wenshu.workspace.paths import Root

ROOT = Path(__file__).resolve().parents[1]
ITEMS = tasks()
FIXTURES = ITEMS + tasks(which="heldout")


def pytest_in(folder: Path, *args: str) -> int:
    command = " ".join(["python3 -m pytest -q", *args])
    return run_command(Root(folder), command, allowlist=[command], path=PATH, env=ENV, timeout_s=120).returncode


def test_the_set_has_enough_tasks_of_several_kinds():
    assert len(ITEMS) >= 12 and len({i["id"] for i in ITEMS}) == len(ITEMS)
    assert {"operator", "branch", "new_function", "csv_export"} <= {i["kind"] for i in ITEMS}
    assert any(any("\u4e00" <= c <= "\u9fff" for c in i["goal"]) for i in ITEMS)  # Chinese goals too


@pytest.mark.parametrize("item", FIXTURES, ids=[i["id"] for i in FIXTURES])
def test_each_fixture_fails_first_and_its_reference_fix_passes(item, tmp_path):
    project, solution = DATA / item["id"] / "project", DATA / item["id"] / "solution"
    assert item["goal"].strip() and (project / item["expected"].split("::")[0]).is_file()
    assert not any(is_test_file(rel) for rel in files_of(solution))  # the fix never touches a test
    work = tmp_path / "project"
    shutil.copytree(project, work)
    assert pytest_in(work, item["expected"]) != 0  # failing (or, for a missing function, not importable)
    shutil.copytree(solution, work, dirs_exist_ok=True)
    assert pytest_in(work, item["expected"]) == 0 and pytest_in(work) == 0  # that test and the whole suite


def bench(tmp_path, *args, script=None) -> dict:
    env = {**os.environ, "WENSHU_HOME": str(tmp_path / "home")}
    env.pop("WENSHU_FAKE_SCRIPT", None)
    if script is not None:
        (tmp_path / "script.json").write_text(json.dumps({"default": script}))
        env["WENSHU_FAKE_SCRIPT"] = str(tmp_path / "script.json")
    out = tmp_path / "tasks.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "tasks", "--model", "fake", "--out", str(out), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_the_bench_solves_every_task_with_the_reference_fixes(tmp_path):
    ids = "wrong_operator,missing_branch_div,new_function_slugify,csv_export_last_month"
    data = bench(tmp_path, "--ids", ids)
    s = data["summary"]
    assert (s["n"], s["solved"], s["solved_pct"], s["writes_outside"], s["tests_edited"]) == (4, 4, 100.0, 0, 0)
    assert s["folders_changed_before_apply"] == 0 and s["by_status"] == {"solved": 4}
    r = {x["id"]: x for x in data["records"]}
    assert r["csv_export_last_month"]["files"] == ["export.py"] and r["wrong_operator"]["steps"] == 2
    # one call per decision, and one more per file written (the file comes in the turn after its decision)
    assert all(x["seconds"] > 0 and x["llm_calls"] == x["steps"] + len(x["files"]) for x in data["records"])
    (tmp_path / "held").mkdir()
    held = bench(tmp_path / "held", "--set", "heldout", "--ids", "heldout_sign")
    assert held["set"] == "heldout" and held["summary"]["solved"] == 1


def test_a_model_that_edits_the_tests_solves_nothing_and_edits_nothing(tmp_path):
    cheat = json.dumps({"action": "write_file", "target": "tests/test_calc.py", "reason": "make it green",
                        "content": "def test_add():\n    assert True\n"})  # fmt: skip
    data = bench(tmp_path, "--ids", "wrong_operator,dict_key", "--max-steps", "4", script=cheat)
    s = data["summary"]
    assert (s["solved"], s["writes_outside"], s["tests_edited"]) == (0, 0, 0) and s["by_status"] == {"stuck": 2}
    r = {x["id"]: x for x in data["records"]}
    assert r["wrong_operator"]["refused_test_edits"] == 3  # refused each time, then stuck
    assert r["dict_key"]["refused_test_edits"] == 3  # a test file it does not even have: still refused
