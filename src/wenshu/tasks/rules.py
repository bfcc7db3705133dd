"""Which files are tests, and when the goal lets the agent write one.

A test file is `test_*.py`, `*_test.py`, anything under a `tests/` or `test/` folder, a `conftest.py`,
or pytest's configuration (`pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`: each can change which
tests run). A write to one is refused, unless
- the goal names that file (its path, or its name such as `test_export.py`), or
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


def is_test_file(relative: str) -> bool:
    parts = relative.replace("\\", "/").strip("/").split("/")
    name = parts[-1]
    return bool(TEST_MODULE.match(name)) or name in TEST_CONFIG or any(p in TEST_FOLDERS for p in parts[:-1])


def names_file(goal: str, relative: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return relative in goal or re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w.-])", goal) is not None


def asks_for_test(goal: str) -> bool:
    return ASKS_FOR_TEST.search(goal) is not None


def may_write(goal: str, relative: str, *, existed: bool) -> bool:
    """Whether the agent may write `relative` (existed: the user's folder holds it)."""
    if not is_test_file(relative) or names_file(goal, relative):
        return True
    name = relative.rsplit("/", 1)[-1]
    return not existed and asks_for_test(goal) and bool(TEST_MODULE.match(name))
