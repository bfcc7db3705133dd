"""Which paths of a workspace are not the project's own: caches, version control, dependencies, virtual
environments, and whatever the root `.gitignore` lists.

The `.gitignore` subset understood: blank lines and `#` comments; `name` (any level), `dir/` (folders
only), `/name` and `a/b` (anchored at the root), `*`, `?`, `[...]` and `**/`. Negations (`!keep`) and
`.gitignore` files in subfolders are not read; a negated line is skipped, so it hides nothing.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from wenshu.workspace.files import SKIPPED

ALWAYS = SKIPPED | {".tox", ".nox", ".ruff_cache", ".eggs", ".hg", ".svn", ".idea"}


def is_virtualenv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


class Ignore:
    def __init__(self, root: Path):
        self.root = root
        self.patterns: list[tuple[str, bool, bool]] = []  # (glob, folders only, anchored at the root)
        gitignore = root / ".gitignore"
        if gitignore.is_file():
            for line in gitignore.read_text(encoding="utf-8", errors="replace").splitlines():
                self._add(line.strip())

    def _add(self, line: str) -> None:
        if not line or line.startswith(("#", "!")):
            return
        folders = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line.startswith("**/"):
            line, anchored = line[3:], "/" in line[3:]
        if line:
            self.patterns.append((line, folders, anchored))

    def __call__(self, relative: str, is_dir: bool = False) -> bool:
        """Whether `relative` (forward slashes, from the root) or one of its folders is ignored."""
        parts = [p for p in relative.split("/") if p not in ("", ".")]
        for i, name in enumerate(parts):
            here = "/".join(parts[: i + 1])
            folder = is_dir or i < len(parts) - 1
            if name in ALWAYS or name.endswith(".egg-info") or (folder and is_virtualenv(self.root / here)):
                return True
            if self._matches(here, name, folder):
                return True
        return False

    def _matches(self, here: str, name: str, folder: bool) -> bool:
        for glob, folders_only, anchored in self.patterns:
            if folders_only and not folder:
                continue
            if fnmatch.fnmatchcase(here if anchored else name, glob):
                return True
        return False


def project_files(root: Path, ignore: Ignore | None = None) -> list[str]:
    """Every file of the project (relative, sorted), without ignored ones and without following links out."""
    ignore = ignore or Ignore(root)
    out: list[str] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        for path in sorted(folder.iterdir(), reverse=True):
            rel = path.relative_to(root).as_posix()
            if path.is_symlink() and not _inside(root, path):
                continue
            if path.is_dir():
                if not path.is_symlink() and not ignore(rel, True):
                    stack.append(path)
            elif path.is_file() and not ignore(rel):
                out.append(rel)
    return sorted(out)


def _inside(root: Path, path: Path) -> bool:
    resolved = path.resolve(strict=False)
    return resolved == root or root in resolved.parents
