"""One workspace task with the real embedded model (Qwen2.5-Coder-1.5B, llama.cpp): the simplest bench
fixture (a wrong operator), end to end through the real loop, verify and apply. The bar: every step the
model decodes under the schema parses, the host opened the code the failing test imports, no test is
edited, nothing is written outside the folder, and the task ends by one of the loop's own endings; when
it is solved, applying it makes the test pass. Whether the 1.5B model solves it is not asserted (when
this test was written it rewrote calc.py into invalid code and the loop ended stuck); the solved rate over all fixtures
is `python -m bench tasks --model embedded`."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from bench.tasks import DATA, ENV, expected_passes, files_of
from tasks_support import PATH

pytestmark = pytest.mark.model


def test_the_embedded_model_fixes_a_wrong_operator(real_model_path, tmp_path):
    from wenshu.providers.registry import resolve
    from wenshu.settings import Settings
    from wenshu.tasks.config import TaskConfig
    from wenshu.tasks.loop import apply_task, run_task
    from wenshu.tasks.store import TaskStore

    case = tmp_path / "case"
    shutil.copytree(DATA / "wrong_operator" / "project", case / "project")
    (case / "next_to_it.txt").write_text("untouched\n")
    original = files_of(case / "project")
    settings = Settings(home=tmp_path / "home", model_path=real_model_path, llm_provider="embedded")
    # two decisions: the host has opened calc.py, so enough to write and finish; the loop's guarantees hold at
    # any step limit, and each decision costs the suite about ten seconds
    config = dataclasses.replace(TaskConfig.from_settings(settings, path=PATH, env=ENV), max_steps=2)
    store = TaskStore(settings.home / "tasks")
    task = store.create(case / "project", "Make the failing test pass.", step_limit=config.max_steps,
                        test_command=config.test_command, max_copy_mb=config.max_copy_mb)
    task = run_task(store, task.id, resolve(settings), config)
    trace = "\n".join(f"{s.n}. {s.action} {s.target}: {s.summary[:200]}" for s in task.steps)
    assert not [s for s in task.steps if s.action == "invalid"], trace
    assert files_of(case / "project") == original and (case / "next_to_it.txt").read_text() == "untouched\n"
    assert "calc.py" in task.opened, trace  # the host opened what the failing test imports
    assert task.status in ("solved", "stuck", "max_steps"), trace
    assert not task.result.tests_edited, trace
    if task.status == "solved":
        apply_task(store, task.id)
        assert expected_passes(case / "project", "tests/test_calc.py::test_add", config)
        assert files_of(case / "project")["tests/test_calc.py"] == original["tests/test_calc.py"]
