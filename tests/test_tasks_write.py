"""Writing a file with the scripted fake model on real folders: the decision names the file, the next turn
of the same conversation brings the whole file as plain code (tasks/compose.py); a Python file that does
not parse is refused with its syntax error before any test runs; a write runs the tests; a file given back
unchanged while the tests fail is asked for once more."""

from __future__ import annotations

from tasks_support import CALC, CALC_FIXED, calc_project, config, fenced, models, new_task, step
from wenshu.tasks.compose import code_of, file_budget, language
from wenshu.tasks.loop import run_task


def test_a_written_file_is_the_code_of_the_answer_within_a_budget_sized_to_the_file():
    body = "def add(a, b):\n    return a + b\n"
    assert code_of(f"```python\n{body}```\nThat fixes it.") == body  # the fence closed, prose after it
    assert code_of(f"```python\n{body}") == body  # the answer stopped at the closing fence
    assert code_of(f"Here it is:\n```\n{body.rstrip()}") == body  # prose before, no language, one final newline
    assert code_of(body) == body and code_of("```python\n```\nnothing to add") == "" and code_of("") == ""
    assert [language(p) for p in ("calc.py", "app.yml", "Makefile", "a.json")] == ["python", "yaml", "text", "json"]
    assert file_budget(None, 1500) == 384 and file_budget("x" * 600, 1500) == 684  # about 1.5 times the file
    assert file_budget("x" * 9000, 1500) == 1500


def test_a_write_that_does_not_parse_is_refused_with_its_syntax_error_and_a_good_one_runs_the_tests(tmp_path):
    broken = CALC_FIXED.replace("return a + b", "return (a + b")
    client, fake = models(step("write_file", "calc.py", broken), step("write_file", "calc.py", CALC_FIXED),
                          step("finish"))  # fmt: skip
    store, task = new_task(tmp_path, calc_project(tmp_path))
    task = run_task(store, task.id, client, config())
    refused = task.steps[1]
    assert (refused.action, refused.ok, refused.code) == ("write_file", False, "task_syntax_error")
    assert "not valid Python ('(' was never closed at line 2: return (a + b)" in refused.summary
    retry = fake.calls[2][1].content  # the next decision reads the error, and the file as it was
    assert "task_syntax_error" in retry and "return a - b" in retry and retry.count("return (a + b") == 1  # the error
    assert task.steps[2].summary.endswith("tests passed: 2 passed") and task.steps[2].outcome == "passed"
    assert "the tests pass now" in fake.calls[4][1].content  # after a green write: finish
    assert task.status == "solved" and task.decisions == 3


def test_a_file_given_back_unchanged_while_the_tests_fail_is_asked_for_once_more(tmp_path):
    client, fake = models(step("write_file", "calc.py", CALC), fenced(CALC_FIXED), step("finish"))
    store, task = new_task(tmp_path, calc_project(tmp_path))
    task = run_task(store, task.id, client, config())
    again = fake.calls[2]
    assert again[-2].content == f"```python\n{CALC}```" and "exactly as it is now" in again[-1].content
    assert task.status == "solved" and task.decisions == 2 and len(fake.calls) == 4


def test_an_answer_without_a_file_is_an_unusable_step_and_nothing_is_written(tmp_path):
    client, _ = models(step("write_file", "calc.py", ""), step("finish"))
    store, task = new_task(tmp_path, calc_project(tmp_path))
    task = run_task(store, task.id, client, config(max_steps=2))
    assert (task.steps[1].action, task.steps[1].code) == ("write_file", "invalid_step")
    assert "held no file" in task.steps[1].summary and task.written == [] and task.status != "solved"
