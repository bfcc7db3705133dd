"""Copy a project folder for work or a test run: caches, version control, dependencies and virtual
environments left out (`ignore.ALWAYS`), links kept as links, within a size limit.

A link that stays inside the folder is copied as it is (it resolves inside the copy too); a link that
points out is copied as a link to the same absolute target, so the copy behaves like the folder and the
workspace tools still refuse it (paths.Root follows links)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from wenshu.workspace.errors import FolderTooLarge
from wenshu.workspace.ignore import ALWAYS, is_virtualenv


def copy_tree(src: Path, dst: Path, *, max_mb: int = 200) -> dict[str, str]:
    """Copy `src` into the new folder `dst`; returns {relative path: sha256} of the regular files copied."""
    src = src.resolve(strict=True)
    limit, total, manifest = max_mb << 20, 0, {}
    dst.mkdir(parents=True, exist_ok=False)
    for folder, dirs, files in os.walk(src):  # links to folders are listed in `dirs` and never entered
        here = Path(folder)
        rel_dir = here.relative_to(src)
        kept = [d for d in dirs if d not in ALWAYS and not d.endswith(".egg-info") and not is_virtualenv(here / d)]
        links = sorted(d for d in kept if (here / d).is_symlink())
        dirs[:] = sorted(d for d in kept if d not in links)
        for d in dirs:
            (dst / rel_dir / d).mkdir()
        for name in sorted(files) + links:
            path, target = here / name, dst / rel_dir / name
            if path.is_symlink():
                _copy_link(src, path, target)
                continue
            if not path.is_file():
                continue  # sockets, fifos
            total += path.stat().st_size
            if total > limit:
                shutil.rmtree(dst, ignore_errors=True)
                raise FolderTooLarge(str(src), max_mb)
            shutil.copy2(path, target)
            manifest[(rel_dir / name).as_posix()] = file_hash(target)
    return manifest


def _copy_link(src: Path, link: Path, target: Path) -> None:
    resolved = link.resolve(strict=False)
    inside = resolved == src or src in resolved.parents
    os.symlink(os.readlink(link) if inside else resolved, target)


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
