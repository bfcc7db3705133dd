"""Perceive: the project tree within a token budget (ignored paths left out, test files marked), and the
files the agent has opened, as they are now, within a character budget. File contents reach the model
when it asked for them (read_file) or wrote them, and the failing tests with the code they import, which
the host opens after the first test run (`failing_tests`, `code_under_test`)."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from wenshu.prompts import render
from wenshu.errors import WenshuError
from wenshu.tasks.feedback import file_view
from wenshu.tasks.rules import is_test_file
from wenshu.workspace.files import read_text
from wenshu.workspace.ignore import Ignore, project_files
from wenshu.workspace.paths import Root

MAX_COUNTED_BYTES = 1 << 20  # larger files are shown with their size, not their line count


def tokens(text: str) -> int:
    return len(text) // 4 + 1


def describe(root: Path, relative: str) -> str:
    path = root / relative
    try:
        size = path.stat().st_size
        if size > MAX_COUNTED_BYTES:
            what = f"{size >> 10} KB"
        else:
            data = path.read_bytes()
            count = data.count(b"\n") + (not data.endswith(b"\n") and bool(data))
            what = "binary" if b"\x00" in data[:4096] else f"{count} lines"
    except OSError:
        what = "unreadable"
    return f"{relative} ({what}{', test' if is_test_file(relative) else ''})"


def _lines(root: Path, files: list[str], depth: int) -> list[str]:
    """One line per file no deeper than `depth` folders; deeper files counted under their folder."""
    out, folders = [], Counter()
    for rel in files:
        parts = rel.split("/")
        if len(parts) - 1 > depth:
            folder = "/".join(parts[: depth + 1])
            if folder not in folders:
                out.append(folder)
            folders[folder] += 1
        else:
            out.append(rel)
    return [f"{x}/ ({folders[x]} files)" if x in folders else describe(root, x) for x in out]


def project_tree(root: Root, *, budget_tokens: int, ignore: Ignore | None = None) -> str:
    """The deepest listing that fits the budget; at the top level, cut with a count of what is left."""
    files = project_files(root.path, ignore or Ignore(root.path))
    if not files:
        return "(no files)"
    deepest = max(f.count("/") for f in files)
    for depth in range(deepest, -1, -1):
        lines = _lines(root.path, files, depth)
        if tokens("\n".join(lines)) <= budget_tokens:
            return "\n".join(lines)
    shown: list[str] = []
    for line in lines:
        if tokens("\n".join([*shown, line])) > budget_tokens - 10:
            break
        shown.append(line)
    return "\n".join([*shown, f"… ({len(lines) - len(shown)} more)"])


def open_files(work: Root, opened: list[str], *, budget_chars: int,
               focus: set[str]) -> tuple[str, list[str], list[str]]:
    """(the prompt's view of the files opened, most recent first, within the budget; those shown in part;
    those shown whole)."""
    parts, partial, whole, used = [], [], [], 0
    for rel in reversed(opened):
        try:
            text = read_text(work, rel)
        except WenshuError:
            continue  # gone or no longer text: the steps say so
        shown, cut = file_view(text.content, focus)
        if len(shown) > budget_chars:
            shown, cut = shown[:budget_chars] + "\n… (cut)", True
        block = render("task_file", path=rel, lines=text.lines, part=", shown in part" if cut else "",
                       content=shown.rstrip("\n")).strip()
        if parts and used + len(block) > budget_chars:
            break
        parts.append(block)
        used += len(block)
        (partial if cut else whole).append(rel)
    return "\n\n".join(parts), partial, whole


_PY_PATH = re.compile(r"[\w./-]+\.py")


def _module_files(root: Path, module: str) -> list[str]:
    base = module.replace(".", "/")
    for prefix in ("", "src/"):
        for rel in (f"{prefix}{base}.py", f"{prefix}{base}/__init__.py"):
            if (root / rel).is_file():
                return [rel]
    return []


def failing_tests(root: Path, failure_text: str) -> list[str]:
    """The project's test files the failure text names: what the code must do, so the host opens them
    before the first decision."""
    return [t for t in dict.fromkeys(_PY_PATH.findall(failure_text or "")) if is_test_file(t) and (root / t).is_file()]


def code_under_test(root: Path, failure_text: str) -> list[str]:
    """The project's code files that the failing test files import (the failure text names the tests):
    what a programmer opens first, so the host opens them before the first decision."""
    out: list[str] = []
    for test in failing_tests(root, failure_text):
        try:
            tree = ast.parse((root / test).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                out += [f for f in _module_files(root, name) if not is_test_file(f) and f not in out]
    return out
