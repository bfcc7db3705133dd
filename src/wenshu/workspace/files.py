"""List, read and write text files inside a workspace root (`workspace/paths.py` confines every path)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wenshu.workspace.errors import NotInWorkspace, NotText
from wenshu.workspace.paths import Root

SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "venv", "dist", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the root, with forward slashes
    kind: str  # "file" | "dir"
    size: int


@dataclass(frozen=True)
class Text:
    path: str
    content: str
    lines: int
    truncated: bool  # only the first max_bytes were read


def list_files(root: Root, relative: str = ".", *, limit: int = 500) -> list[Entry]:
    """Files and folders under `relative`, depth first, leaving out caches and virtual environments;
    symlinks that lead out of the root are not followed or listed."""
    base = root.resolve(relative)
    if not base.exists():
        raise NotInWorkspace(relative)
    out: list[Entry] = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and _inside(root, Path(folder) / d))
        here = Path(folder)
        for name in [*dirs, *sorted(files)]:
            path = here / name
            if not _inside(root, path):
                continue
            kind = "dir" if path.is_dir() else "file"
            out.append(Entry(root.relative(path.resolve()), kind, 0 if kind == "dir" else path.stat().st_size))
            if len(out) >= limit:
                return out
    return out


def _inside(root: Root, path: Path) -> bool:
    resolved = path.resolve(strict=False)
    return resolved == root.path or root.path in resolved.parents


def read_text(root: Root, relative: str, *, max_bytes: int = 200_000) -> Text:
    path = root.resolve(relative)
    if not path.is_file():
        raise NotInWorkspace(relative)
    with path.open("rb") as fh:
        data = fh.read(max_bytes + 1)
    truncated = len(data) > max_bytes
    try:
        content = data[:max_bytes].decode("utf-8", errors="strict" if not truncated else "ignore")
    except UnicodeDecodeError as err:
        raise NotText(relative) from err
    if "\x00" in content:
        raise NotText(relative)
    return Text(root.relative(path), content, content.count("\n") + (not content.endswith("\n") and bool(content)),
                truncated)  # fmt: skip


def write_text(root: Root, relative: str, content: str) -> Text:
    """Write a whole file (parents created inside the root); returns what was written."""
    path = root.resolve(relative)
    if path.is_dir():
        raise NotText(relative)
    path.parent.mkdir(parents=True, exist_ok=True)
    root.resolve(root.relative(path.parent))  # the created parents are still inside (no race through a symlink)
    path.write_text(content, encoding="utf-8")
    return Text(root.relative(path), content, content.count("\n") + (not content.endswith("\n") and bool(content)),
                False)  # fmt: skip
