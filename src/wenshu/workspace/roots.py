"""The folders a server lets workspace tasks work in: its configured roots and what lies inside them.

A browser (or any HTTP client) names a folder; the server accepts it only when, with every link
resolved, it is one of the roots or inside one. The web UI offers the roots and their project folders
(`folders`), so nobody has to type a path, yet a hand-made request gets no further than a listed one.

    allowed = WorkspaceRoots(["/srv/projects"])
    allowed.check("/srv/projects/shop")       # -> Path, or raises WorkspaceNotAllowed
    allowed.folders()                         # [{"path", "name", "root"}, ...]
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wenshu.workspace.errors import NoWorkspaceRoots, WorkspaceMissing, WorkspaceNotAllowed
from wenshu.workspace.ignore import ALWAYS, is_virtualenv

MAX_FOLDERS = 200  # listed in all; a root with more subfolders is still usable by its listed ones


class WorkspaceRoots:
    def __init__(self, roots: Iterable[str | Path]):
        self.roots = []
        for root in roots:
            path = Path(root).expanduser()
            if path.is_dir():  # a configured root that is missing allows nothing, and is not listed
                self.roots.append(path.resolve())

    def check(self, folder: str | Path) -> Path:
        """The folder, resolved, when it is a root or inside one; refused otherwise."""
        if not self.roots:
            raise NoWorkspaceRoots()
        text = str(folder or "").strip()
        if not text or "\x00" in text or not Path(text).expanduser().is_absolute():
            raise WorkspaceNotAllowed(text.replace("\x00", "\\0"))
        real = Path(text).expanduser().resolve()  # links followed: a link inside a root that leads out is out
        if not any(real == root or root in real.parents for root in self.roots):
            raise WorkspaceNotAllowed(text)  # whether it exists or not: nothing is told about folders outside
        if not real.is_dir():
            raise WorkspaceMissing(text)
        return real

    def folders(self) -> list[dict]:
        """Each root, then its subfolders one level down (hidden, cache and virtual-environment folders left
        out), as {path, name, root}; at most MAX_FOLDERS in all."""
        out = []
        for root in self.roots:
            out.append({"path": str(root), "name": root.name or str(root), "root": str(root)})
            try:
                children = sorted(p for p in root.iterdir() if _project_folder(p) and root in p.resolve().parents)
            except OSError:
                continue
            out += [{"path": str(p), "name": f"{root.name}/{p.name}", "root": str(root)} for p in children]
        return out[:MAX_FOLDERS]


def _project_folder(path: Path) -> bool:
    name = path.name
    if name.startswith(".") or name in ALWAYS or name.endswith(".egg-info"):
        return False
    return path.is_dir() and not is_virtualenv(path)
