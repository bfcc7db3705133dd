"""Layers import downward only: the import-linter contracts of pyproject.toml hold for the code under test,
every package of wenshu has its place in the layers, and the check really fails on an upward import."""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import wenshu

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"
PACKAGE = Path(wenshu.__file__).resolve().parent  # the wenshu these tests import, wherever it lives
LINT = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")


def contracts() -> list[dict]:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def lint(src: Path, cwd: Path) -> subprocess.CompletedProcess:
    """`lint-imports` with the project's contracts over the `wenshu` package found in `src`."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", LINT, str(CONFIG)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_contracts_hold(tmp_path):
    out = lint(PACKAGE.parent, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in out.stdout, out.stdout


def test_every_package_has_a_layer():
    """A new package must be placed in the order, or nothing would stop it importing anything."""
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.split("|")}
    present = {f"wenshu.{m.name}" for m in pkgutil.iter_modules([str(PACKAGE)])}
    assert present - placed == set(), "add these to the layers contract in pyproject.toml"
    assert placed - present == set(), "the layers contract names modules that do not exist"


@pytest.fixture(scope="module")
def copy_of_wenshu(tmp_path_factory) -> Path:
    """The Python files of the package under test, to break on purpose."""
    src = tmp_path_factory.mktemp("copy") / "src"
    for path in PACKAGE.rglob("*.py"):
        target = src / "wenshu" / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return src


@pytest.mark.parametrize("module, line, broken", [
    # the catalog model is the leaf everything builds on
    ("catalog/joins.py", "from wenshu.agent import service", "Layers import downward only BROKEN"),
    ("catalog/model.py", "import sqlalchemy", "The catalog model is plain data: no I/O"),
    # the cycles issue 13 found: channels <-> server, guard <-> sql, storage <-> knowledge, sql -> bootstrap
    ("channels/base.py", "from wenshu.server import deps", "wenshu.channels.base -> wenshu.server.deps"),
    ("guard/plan.py", "from wenshu.sql import repair", "wenshu.guard.plan -> wenshu.sql.repair"),
    ("storage/catalog_store.py", "from wenshu.knowledge import sync",
     "wenshu.storage.catalog_store -> wenshu.knowledge.sync"),
    ("sql/repair.py", "from wenshu import bootstrap", "wenshu.sql.repair -> wenshu.bootstrap"),
    # siblings in one layer are independent of each other
    ("sql/charts.py", "from wenshu.semantic import model", "wenshu.sql.charts -> wenshu.semantic.model"),
    ("engines/execute.py", "from wenshu.settings import get_settings", "never from the settings BROKEN"),
])  # fmt: skip
def test_an_upward_import_is_reported(copy_of_wenshu, tmp_path, module, line, broken):
    """The same check on a copy with one bad import, hidden inside a function as lazy imports are."""
    path = copy_of_wenshu / "wenshu" / module
    original = path.read_text(encoding="utf-8")
    path.write_text(original + f"\n\ndef _wrong_way():\n    {line}\n", encoding="utf-8")
    try:
        out = lint(copy_of_wenshu, tmp_path)
    finally:
        path.write_text(original, encoding="utf-8")
    assert out.returncode == 1, out.stdout + out.stderr
    assert broken in out.stdout, out.stdout
