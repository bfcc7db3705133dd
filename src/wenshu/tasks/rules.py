"""Which files are tests, and when the goal lets the agent write one.

A test file is `test_*.py`, `*_test.py`, anything under a `tests/` or `test/` folder, a `conftest.py`,
or pytest's configuration (`pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`: each can change which
tests run). A write to one is refused, unless
- the goal names that file (its path, or its name such as `test_export.py`), asks to change something
  (change, edit, update, modify, rewrite, correct, adjust, 修改, 更改, 更新, 改写, 修正, 调整) and does not
  ask for tests to pass (pass, passes, passing, green, 通过): "update the expected total in
  tests/test_report.py" may change that file; "make tests/test_x.py pass", "update calc.py so that
  test_x.py passes" or "change test_x.py so it passes" may not — making a test pass by editing it is
  exactly what this rule stops; or
- the goal asks for a test ("with a test", "write tests", "添加测试", ...) and the file is a new test
  module that the folder did not hold: a new test may be added, an existing one is never changed.
"""

from __future__ import annotations

import re

TEST_MODULE = re.compile(r"^(test_.*|.*_test)\.py$")
TEST_FOLDERS = {"tests", "test"}
TEST_CONFIG = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}
ASKS_FOR_TEST = re.compile(
    r"\b(write|add|create|with|plus|including)\s+(an?\s+|new\s+|some\s+|unit\s+|its\s+)*tests?\b"
    r"|(写|编写|添加|增加|补充|新增|加上|附上|附|带上|带)(一个|一些|个|上)?(单元)?测试", re.I)
ASKS_TO_PASS = re.compile(r"\b(pass|passes|passing|green)\b|通过", re.I)
ASKS_TO_CHANGE = re.compile(r"\b(change|edit|update|modify|rewrite|correct|adjust)\b|修改|更改|更新|改写|修正|调整", re.I)
NAMES_A_TEST = re.compile(r"(?<![\w.-])(\S*/)?(test_\w+\.py|\w+_test\.py|conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|"
                          r"pyproject\.toml|tests?/\S+)")


def is_test_file(relative: str) -> bool:
    parts = relative.replace("\\", "/").strip("/").split("/")
    name = parts[-1]
    return bool(TEST_MODULE.match(name)) or name in TEST_CONFIG or any(p in TEST_FOLDERS for p in parts[:-1])


def names_file(goal: str, relative: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return relative in goal or re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w.-])", goal) is not None


def asks_for_test(goal: str) -> bool:
    return ASKS_FOR_TEST.search(goal) is not None


def asks_to_change_tests(goal: str) -> bool:
    """The goal names a test file and asks for a change (what the prompt tells the model)."""
    return _changes_tests(goal) and NAMES_A_TEST.search(goal) is not None


def _changes_tests(goal: str) -> bool:
    return ASKS_TO_CHANGE.search(goal) is not None and ASKS_TO_PASS.search(goal) is None


def may_write(goal: str, relative: str, *, existed: bool) -> bool:
    """Whether the agent may write `relative` (existed: the user's folder holds it)."""
    if not is_test_file(relative) or (names_file(goal, relative) and _changes_tests(goal)):
        return True
    name = relative.rsplit("/", 1)[-1]
    return not existed and asks_for_test(goal) and bool(TEST_MODULE.match(name))
