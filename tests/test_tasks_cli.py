"""`wenshu task ...` as a user runs it (Typer's runner, the scripted fake model from a file): run with
--json / --apply / --max-steps, resume, list, show, apply, discard, and bad input as one sentence. The
project is a unittest one and the test command `python3 -m unittest` (any python3 has it)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tasks_support import CALC, CALC_FIXED, UNITTEST_CALC, flat, snapshot, step, write
from wenshu.cli.app import app
from wenshu.settings import reset_settings_cache

runner = CliRunner()
GOAL = "make the failing test pass"


@pytest.fixture
def project(tmp_path):
    return write(tmp_path / "project", {"calc.py": CALC, "test_calc.py": UNITTEST_CALC})


@pytest.fixture
def script(home, tmp_path, monkeypatch):
    def write_script(*answers):
        path = tmp_path / "script.json"
        path.write_text(json.dumps(flat(*answers)), encoding="utf-8")
        monkeypatch.setenv("WENSHU_LLM_PROVIDER", "fake")
        monkeypatch.setenv("WENSHU_FAKE_SCRIPT", str(path))
        monkeypatch.setenv("WENSHU_TASK_TEST_COMMAND", "python3 -m unittest")
        reset_settings_cache()

    return write_script


def run(*args):
    return runner.invoke(app, ["task", *args])


def test_run_json_then_apply_list_show_and_discard(script, project):
    before = snapshot(project)
    script(step("run_command", "ls"), step("write_file", "calc.py", CALC_FIXED), step("finish"))
    out = run("run", "--workspace", str(project), GOAL, "--json")
    assert out.exit_code == 0, out.output
    task = json.loads(out.stdout)
    assert task["status"] == "solved" and [s["action"] for s in task["steps"]][-2:] == ["finish", "verify"]
    assert task["steps"][0]["summary"].startswith("clean copy: tests failed: 2 tests, failures=1")
    assert "+    return a + b" in task["result"]["diff"] and snapshot(project) == before
    listed = json.loads(run("list", "--json").stdout)
    assert [(t["id"], t["status"], t["steps"]) for t in listed] == [(task["id"], "solved", 3)]
    shown = run("show", task["id"])
    assert shown.exit_code == 0 and "write_file calc.py" in shown.stdout and "+    return a + b" in shown.stdout
    applied = run("apply", task["id"])
    assert applied.exit_code == 0 and "Applied to the folder: calc.py" in applied.stdout
    assert (project / "calc.py").read_text() == CALC_FIXED
    gone = run("discard", task["id"])
    assert gone.exit_code == 0 and "were removed" in gone.stdout and json.loads(run("list", "--json").stdout) == []
    assert (project / "calc.py").read_text() == CALC_FIXED  # discarding never touches the folder


def test_run_prints_the_steps_and_applies_with_apply(script, project):
    script(step("write_file", "calc.py", CALC_FIXED, reason="plus, not minus"), step("finish"))
    out = run("run", "-w", str(project), GOAL, "--apply")
    assert out.exit_code == 0, out.output
    assert "2. ✓ write_file calc.py — plus, not minus" in out.stdout and "Applied to the folder" in out.stdout
    assert (project / "calc.py").read_text() == CALC_FIXED


def test_max_steps_then_resume_then_apply(script, project):
    script(step("run_command", "ls"), step("write_file", "calc.py", CALC_FIXED), step("finish"))
    out = run("run", "-w", str(project), GOAL, "--max-steps", "1", "--json")
    task = json.loads(out.stdout)
    assert out.exit_code == 1 and task["status"] == "max_steps" and task["ending"]["code"] == "max_steps"
    forced = run("apply", task["id"])
    assert forced.exit_code == 1 and "task_not_solved" in forced.output
    resumed = run("resume", task["id"], "--json")
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["status"] == "solved"
    assert run("apply", task["id"]).exit_code == 0 and (project / "calc.py").read_text() == CALC_FIXED


def test_bad_input_is_one_sentence(script, tmp_path, project):
    script()
    (tmp_path / "empty").mkdir()
    for args, words in ((("run", "-w", str(tmp_path / "empty"), GOAL), "holds no project files"),
                        (("run", "-w", str(tmp_path / "nowhere"), GOAL), "does not exist"),
                        (("run", "-w", str(project), " "), "give the task a goal"),
                        (("resume", "20240101-000000-abcdef"), "There is no task"),
                        (("discard", "../../etc"), "There is no task")):  # fmt: skip
        out = run(*args)
        assert out.exit_code == 1 and words in out.output and "Traceback" not in out.output, args
    zh = run("run", "-w", str(tmp_path / "empty"), "让失败的测试通过")
    assert "没有项目文件" in zh.output
