"""Shared pieces of the workspace-task tests: real project folders, a config whose commands find this
interpreter's pytest, the scripted fake model as a ModelClient, and a snapshot of a folder's files."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from wenshu.providers.base import ModelClient
from wenshu.providers.fake import ScriptedChatModel
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.store import TaskStore

PATH = f"{Path(sys.executable).parent}:/usr/bin:/bin"  # the system python3 may lack pytest; this one has it
CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_FIXED = CALC.replace("a - b", "a + b")
TEST_CALC = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
UNITTEST_CALC = ("import unittest\n\nfrom calc import add, mul\n\n\nclass CalcTest(unittest.TestCase):\n"
                 "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
                 "    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n")


def step(action: str, target: str = "", content: str | None = None, reason: str = "because") -> str | tuple[str, str]:
    """The model's decision; with `content`, also its next answer: the whole file, fenced as the model writes it."""
    decision = json.dumps({"action": action, "target": target, "reason": reason})
    return decision if content is None else (decision, fenced(content))


def fenced(content: str, language: str = "python") -> str:
    return f"```{language}\n{content}```\nThis is the whole file."


def flat(*answers) -> list:
    """The fake model's answers in order: a write's (decision, file) pair becomes two answers."""
    return [a for x in answers for a in (x if isinstance(x, tuple) else (x,))]


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            (root / rel).write_bytes(text)
        else:
            (root / rel).write_text(text, encoding="utf-8")
    return root


def calc_project(base: Path) -> Path:
    return write(base / "project", {"calc.py": CALC, "tests/test_calc.py": TEST_CALC})


def snapshot(root: Path) -> dict[str, str]:
    """{relative path: sha256 (or link target)} of everything under root, caches included."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def config(**kw) -> TaskConfig:
    kw.setdefault("path", PATH)
    kw.setdefault("test_timeout_s", 60)
    kw.setdefault("env", {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})  # these projects need no plugin: 1 s a run, not 8
    return TaskConfig(**kw)


def models(*answers) -> tuple[ModelClient, ScriptedChatModel]:
    fake = ScriptedChatModel().queue(*flat(*answers))
    return ModelClient({"fast": fake, "strong": fake}, provider="fake"), fake


def new_task(tmp_path: Path, folder: Path, goal: str = "make the failing test pass", cfg: TaskConfig | None = None):
    cfg = cfg or config()
    store = TaskStore(tmp_path / "home" / "tasks")
    task = store.create(folder, goal, step_limit=cfg.max_steps, test_command=cfg.test_command,
                        max_copy_mb=cfg.max_copy_mb)
    return store, task
