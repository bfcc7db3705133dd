"""Resolve a path given by a model or a user to a real path inside the workspace root, or refuse it.

Absolute paths, NUL bytes and anything that resolves outside the root (`..`, a symlink pointing out,
a symlinked parent) are refused. A path that does not exist yet resolves through its existing parent,
so writing a new file cannot escape either.
"""

from __future__ import annotations

from pathlib import Path

from wenshu.workspace.errors import PathOutsideWorkspace, WorkspaceMissing


class Root:
    def __init__(self, root: str | Path):
        path = Path(root).expanduser()
        if not path.is_dir():
            raise WorkspaceMissing(str(root))
        self.path = path.resolve(strict=True)

    def resolve(self, relative: str | Path) -> Path:
        text = str(relative).strip() or "."
        if "\x00" in text:
            raise PathOutsideWorkspace(text.replace("\x00", "\\0"), "a NUL byte")
        if Path(text).is_absolute() or text.startswith("~"):
            raise PathOutsideWorkspace(text, "an absolute path")
        target = (self.path / text).resolve(strict=False)  # follows every symlink that exists
        if target != self.path and self.path not in target.parents:
            raise PathOutsideWorkspace(text, "it leads out of the folder")
        return target

    def relative(self, path: Path) -> str:
        return path.relative_to(self.path).as_posix() or "."
