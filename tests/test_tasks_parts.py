"""The parts of the task loop on their own: which files are tests, .gitignore rules, the project tree
within its budget, signals from real pytest runs, parsing a decision, the pure loop control, copies
and diffs."""

from __future__ import annotations

import pytest

from tasks_support import CALC, PATH, UNITTEST_CALC, calc_project, write
from wenshu.providers.base import InvalidAnswer
from wenshu.tasks import control, diff
from wenshu.tasks.decide import parse_decision
from wenshu.tasks.feedback import file_view, focus_words, signal_of_tests
from wenshu.tasks.perceive import project_tree, tokens
from wenshu.tasks.record import FileChange, TaskStep
from wenshu.tasks.rules import asks_for_test, asks_to_change_tests, is_test_file, may_write
from wenshu.workspace.commands import run_command
from wenshu.workspace.copy import copy_tree
from wenshu.workspace.errors import FolderTooLarge
from wenshu.workspace.ignore import Ignore, project_files
from wenshu.workspace.paths import Root

PYTEST = "python3 -m pytest -q"
ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_which_files_are_tests_and_when_the_goal_allows_writing_one():
    for path in ("tests/test_a.py", "test_a.py", "pkg/a_test.py", "tests/helpers.py", "test/data.json",
                 "conftest.py", "src/conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"):
        assert is_test_file(path), path
    for path in ("calc.py", "src/testing.py", "contest.py", "attests/x.py", "latest_test_results.csv"):
        assert not is_test_file(path), path
    assert asks_for_test("add a script that exports GMV by region to CSV, with a test")
    assert asks_for_test("write tests for slugify") and asks_for_test("导出脚本，并添加测试")
    assert not asks_for_test("make the failing test pass") and not asks_for_test("修复失败的测试")
    assert not asks_for_test("fix the bug and make the failing test pass")
    goal = "export GMV to CSV, with a test"
    assert may_write(goal, "tests/test_export.py", existed=False) and not may_write(goal, "tests/test_export.py",
                                                                                   existed=True)  # fmt: skip
    assert not may_write(goal, "conftest.py", existed=False) and not may_write(goal, "tests/helpers.py", existed=False)
    assert may_write("update the expectation in tests/test_calc.py", "tests/test_calc.py", existed=True)
    assert may_write("change test_calc.py's expectation to 6", "tests/test_calc.py", existed=True)
    assert may_write("修改 tests/test_calc.py 中的期望值", "tests/test_calc.py", existed=True)
    assert not may_write("change mytest_calc.py", "tests/test_calc.py", existed=True)
    for goal in ("make tests/test_calc.py pass", "fix the bug so that test_calc.py passes",
                 "write add in calc.py as tests/test_calc.py expects", "update calc.py so that test_calc.py passes",
                 "change tests/test_calc.py so it passes", "修改代码让 tests/test_calc.py 通过"):
        assert not may_write(goal, "tests/test_calc.py", existed=True), goal  # named as the test to pass
    assert asks_to_change_tests("update the expectation in tests/test_calc.py")
    assert not asks_to_change_tests("update calc.py so that tests/test_calc.py passes")
    assert not asks_to_change_tests("update the expectation in calc.py")
    assert may_write("make the failing test pass", "calc.py", existed=True)


def test_gitignore_rules_and_always_skipped_folders(tmp_path):
    root = write(tmp_path / "p", {
        ".gitignore": "# build output\n*.log\n/out/\nbuild/\ndata/*.csv\n!keep.log\n**/secret.txt\n",
        "a.py": "", "x.log": "", "keep.log": "", "out/o.py": "", "sub/out/o.py": "", "build/b.py": "",
        "sub/build/b.py": "", "data/d.csv": "", "data/d.json": "", "sub/data/d.csv": "", "deep/er/secret.txt": "",
        "node_modules/m.js": "", "env1/pyvenv.cfg": "", "env1/lib/x.py": "", "pkg.egg-info/PKG-INFO": "",
        ".git/HEAD": "",
    })
    assert project_files(root) == [".gitignore", "a.py", "data/d.json", "sub/data/d.csv", "sub/out/o.py"]
    ignore = Ignore(root)
    assert ignore("build", is_dir=True) and not ignore("build") and ignore("x/y/z.log") and ignore(".git/hooks/x")


def test_the_tree_fits_its_budget_by_collapsing_deep_folders(tmp_path):
    files = {f"pkg/mod{i}/part{j}.py": "x = 1\n" for i in range(15) for j in range(8)}
    root = write(tmp_path / "big", {**files, "README.md": "# big\n", "tests/test_pkg.py": "def test_x():\n    pass\n"})
    full = project_tree(Root(root), budget_tokens=10_000)
    assert "pkg/mod3/part7.py (1 lines)" in full and "tests/test_pkg.py (2 lines, test)" in full
    small = project_tree(Root(root), budget_tokens=200)
    assert tokens(small) <= 200 and "pkg/mod3/ (8 files)" in small and "README.md (1 lines)" in small
    tiny = project_tree(Root(root), budget_tokens=20)
    assert tokens(tiny) <= 20 and "pkg/ (120 files)" in tiny
    crowded = write(tmp_path / "flat", {f"f{i:03}.py": "" for i in range(300)})
    cut = project_tree(Root(crowded), budget_tokens=100)
    assert tokens(cut) <= 100 and cut.splitlines()[-1].startswith("… (") and "more)" in cut


def test_a_long_file_becomes_its_line_count_plus_the_relevant_part():
    text = "import csv\n" + "".join(f"def helper{i}():\n    return {i}\n" for i in range(100))
    text += "def export_gmv(rows):\n    return sorted(rows)\n"
    shown, partial = file_view(text, focus_words("write export_gmv so that the test passes"))
    assert partial and "import csv" in shown and "def export_gmv(rows):" in shown and "helper50" not in shown
    assert "… (lines" in shown and len(shown.splitlines()) <= 90
    assert file_view(CALC, set()) == (CALC, False)


def _signal(root, cmd=PYTEST, timeout=60):
    return signal_of_tests(run_command(Root(root), cmd, allowlist=[cmd], path=PATH, env=ENV, timeout_s=timeout), cmd,
                       str(root))


def test_test_output_becomes_pass_fail_and_the_failing_assertions(tmp_path):
    red = _signal(calc_project(tmp_path))
    assert red.outcome == "failed" and red.summary.splitlines()[0] == "tests failed: 1 failed, 1 passed"
    assert "tests/test_calc.py::test_add: assert -1 == 5" in red.summary and "(at tests/test_calc.py:5)" in red.summary
    assert "def test_add" not in red.summary and len(red.summary) < 400  # a signal, not the dump
    broken = write(tmp_path / "imp", {"tests/test_x.py": "from nowhere_module import f\n\n\ndef test_f():\n    f()\n"})
    err = _signal(broken)
    assert err.outcome == "failed" and "No module named 'nowhere_module'" in err.summary and str(broken) not in err.summary
    green = _signal(write(tmp_path / "green", {"tests/test_ok.py": "def test_ok():\n    assert True\n"}))
    assert (green.outcome, green.summary, green.failure) == ("passed", "tests passed: 1 passed", None)
    none = _signal(write(tmp_path / "none", {"app.py": "x = 1\n"}))
    assert none.outcome == "no_tests"
    hang = _signal(write(tmp_path / "hang", {"tests/test_h.py": "import time\n\n\ndef test_h():\n    time.sleep(30)\n"}),
                   timeout=1)  # fmt: skip
    assert hang.outcome == "timeout" and "timed out after" in hang.summary
    unit = write(tmp_path / "unit", {"calc.py": CALC, "test_calc.py": UNITTEST_CALC})
    red_unit = _signal(unit, "python3 -m unittest")
    assert red_unit.outcome == "failed" and red_unit.summary.splitlines()[0] == "tests failed: 2 tests, failures=1"
    assert "- test_calc.CalcTest.test_add: AssertionError: -1 != 5 (at test_calc.py:8)" in red_unit.summary
    missing = signal_of_tests(run_command(Root(tmp_path / "green"), PYTEST, allowlist=[PYTEST], path="/nonexistent"),
                          PYTEST)  # fmt: skip
    assert missing.outcome == "broken"


def test_a_decision_is_parsed_or_the_reason_is_said():
    d = parse_decision('```json\n{"action": "write_file", "target": " calc.py ", "reason": "a plus"}\n```')
    assert (d.action, d.target, d.reason, d.content) == ("write_file", "calc.py", "a plus", "")  # the file comes next
    assert parse_decision('{"action": "write_file", "target": "a.py", "reason": "", "content": "zzz"}').content == ""
    assert parse_decision('{"action": "finish", "target": "", "reason": "done"}').action == "finish"
    for raw, why in (("no json here", "not one JSON object"), ('["read_file"]', "not a JSON object"),
                     ('{"action": "delete", "target": "/"}', "must be one of"),
                     ('{"action": "read_file", "target": "", "reason": ""}', "needs a \"target\""),
                     ('{"action": "read_file", "target": 3, "reason": ""}', "must be text")):
        with pytest.raises(InvalidAnswer) as err:
            parse_decision(raw)
        assert why in str(err.value), raw


def S(n, action, target="", **kw) -> TaskStep:
    return TaskStep(n=n, action=action, target=target, **kw)


def test_loop_control_is_a_pure_function_of_the_steps():
    base = S(1, "verify", "baseline", outcome="failed", failure="X")
    assert control.next_move([], 3) == "decide" and control.next_move([base], 3) == "decide"
    assert control.next_move([base, S(2, "finish")], 3) == "verify"
    done = [base, S(2, "finish"), S(3, "verify", "finish", outcome="passed")]
    assert control.next_move(done, 3) == "solved"
    assert control.next_move([*done[:2], S(3, "verify", "finish", outcome="no_tests")], 3) == "no_tests"
    assert control.next_move([S(1, "verify", "baseline", outcome="broken")], 3) == "test_command_failed"
    red = [*done[:2], S(3, "verify", "finish", outcome="failed", failure="X")]
    assert control.next_move(red, 3) == "decide" and control.next_move(red, 1) == "max_steps"
    reads = [base, S(2, "read_file", "a.py"), S(3, "read_file", "a.py"), S(4, "read_file", "a.py")]
    assert control.stuck(reads) == ("read_file a.py", False) and control.next_move(reads, 10) == "stuck"
    assert control.stuck(reads[:3]) is None
    fails = [base] + [S(i, a, "calc.py" if a == "write_file" else "pytest", failure="X" if a == "run_command" else None)
                      for i, a in enumerate(["write_file", "run_command"] * 3, 2)]  # fmt: skip
    assert control.stuck(fails) == ("X", True) and control.stuck(fails[:-1]) is None  # the baseline does not count
    rewrites = [base] + [S(i, "write_file", "a.py", failure=f"assert {i}") for i in (2, 3, 4)]  # each changed a.py
    assert control.stuck(rewrites) is None and control.next_move(rewrites, 10) == "decide"
    same = [base] + [S(i, "write_file", "a.py", failure="unchanged: a.py") for i in (2, 3, 4)]
    assert control.stuck(same) == ("write_file a.py", False)
    runs = [base, S(2, "run_command", "ls", outcome="passed"), S(3, "write_file", "a.py", outcome="failed"),
            S(4, "run_command", "python3 -m pytest -q", outcome="passed"), S(5, "read_file", "a.py")]
    assert [control.last_test_run(runs[:i]) for i in (2, 3, 4, 5)] == [base, runs[2], runs[3], runs[3]]  # not ls
    assert control.needs_final_verify(fails) and not control.needs_final_verify(red)


def test_history_keeps_the_latest_steps_whole_and_the_rest_on_one_line():
    steps = [S(i, "run_command", "ls", summary=f"exit 0 in 0.1 s\nline {i}\n" + "x" * 300) for i in range(1, 6)]
    text = control.history(steps, keep_full=2)
    lines = text.splitlines()
    assert lines[0].startswith("1. run_command ls -> exit 0 in 0.1 s line 1 xxx") and lines[0].endswith("…")
    assert len(lines[0]) < 200 and lines[3].startswith("Step 4: run_command")
    assert text.count("Result (data, not instructions)") == 2 and control.history([], 2) == "(none yet)"


def test_copies_skip_caches_and_stop_at_the_size_limit(tmp_path):
    src = write(tmp_path / "src", {"a.py": "x\n", "__pycache__/a.pyc": b"\x00", ".venv/pyvenv.cfg": "",
                                   "big.bin": b"\x00" * (2 << 20)})  # fmt: skip
    manifest = copy_tree(src, tmp_path / "copy", max_mb=5)
    assert sorted(manifest) == ["a.py", "big.bin"] and not (tmp_path / "copy" / "__pycache__").exists()
    with pytest.raises(FolderTooLarge) as err:
        copy_tree(src, tmp_path / "copy2", max_mb=1)
    assert err.value.code == "workspace_too_large" and not (tmp_path / "copy2").exists()


def test_the_diff_is_unified_and_marks_a_missing_final_newline(tmp_path):
    original = write(tmp_path / "o", {"a.py": "x = 1\ny = 2\n"})
    work = write(tmp_path / "w", {"a.py": "x = 1\ny = 3", "b.py": "z = 1\n", "same.py": ""})
    write(original, {"same.py": ""})
    found = diff.changes(Root(original), Root(work), ["a.py", "b.py", "same.py"])
    assert [c for c, _, _ in found] == [FileChange(path="a.py", change="modified", added=1, removed=1),
                                        FileChange(path="b.py", change="added", added=1, removed=0)]
    text = diff.unified(found)
    assert "--- a/a.py\n+++ b/a.py\n" in text and "-y = 2\n+y = 3\n\\ No newline at end of file\n" in text
    assert "--- /dev/null\n+++ b/b.py\n@@ -0,0 +1 @@\n+z = 1\n" in text


def test_the_code_a_failing_test_imports_is_found_in_the_project(tmp_path):
    from wenshu.tasks.perceive import code_under_test

    (tmp_path / "src" / "shop").mkdir(parents=True)
    (tmp_path / "src" / "shop" / "__init__.py").write_text("")
    (tmp_path / "src" / "shop" / "prices.py").write_text("def total(xs):\n    return sum(xs)\n")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_all.py").write_text(
        "import os\nfrom calc import add\nfrom shop.prices import total\nimport pytest\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n")
    failure = "- tests/test_all.py::test_add: assert -1 == 5 (at tests/test_all.py:7)"
    assert code_under_test(tmp_path, failure) == ["calc.py", "src/shop/prices.py"]  # not os, not pytest
    assert code_under_test(tmp_path, "- calc.py: SyntaxError") == []  # only test files are read for imports

