"""The result as a diff against the user's folder, and applying it: only the files the agent wrote,
written into the folder through `workspace.paths.Root` (so never outside it), and only when none of them
changed in the folder since the task copied it."""

from __future__ import annotations

import difflib

from wenshu.errors import WenshuError
from wenshu.tasks.endings import ApplyConflict
from wenshu.tasks.record import FileChange
from wenshu.tasks.rules import is_test_file, names_file
from wenshu.workspace.copy import file_hash
from wenshu.workspace.files import read_text, write_text
from wenshu.workspace.paths import Root


def _text(root: Root, rel: str) -> str | None:
    try:
        return read_text(root, rel).content if root.resolve(rel).is_file() else None
    except WenshuError:
        return None


def changes(original: Root, work: Root, written: list[str]) -> list[tuple[FileChange, str | None, str]]:
    """[(change, old text or None, new text)] of the written files whose content differs from the folder's."""
    out = []
    for rel in written:
        new, old = _text(work, rel), _text(original, rel)
        if new is None or new == old:
            continue
        lines = list(difflib.ndiff((old or "").splitlines(), new.splitlines()))
        added, removed = sum(x.startswith("+ ") for x in lines), sum(x.startswith("- ") for x in lines)
        out.append((FileChange(path=rel, change="added" if old is None else "modified", added=added,
                               removed=removed), old, new))  # fmt: skip
    return out


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def unified(found: list[tuple[FileChange, str | None, str]]) -> str:
    parts = []
    for change, old, new in found:
        parts.append("".join(difflib.unified_diff(_lines(old or ""), _lines(new),
                                                  "/dev/null" if old is None else f"a/{change.path}",
                                                  f"b/{change.path}")))  # fmt: skip
    return "".join(parts)


def edited_tests(found: list[tuple[FileChange, str | None, str]], goal: str) -> list[str]:
    """Existing test files the diff would change (the execute rules refuse them: this should stay empty)."""
    return [c.path for c, old, _ in found if old is not None and is_test_file(c.path) and not names_file(goal, c.path)]


def apply(original: Root, work: Root, written: list[str], manifest: dict[str, str]) -> list[str]:
    """Write the changed files into the folder; ApplyConflict (and nothing written) when one of them changed
    there since the task started. `manifest`: {path: sha256} of the folder when the task copied it."""
    found = changes(original, work, written)
    conflicts = []
    for change, _, _ in found:
        path = original.resolve(change.path)
        now = file_hash(path) if path.is_file() else None
        if now != manifest.get(change.path):
            conflicts.append(change.path)
    if conflicts:
        raise ApplyConflict(conflicts)
    for change, _, new in found:
        write_text(original, change.path, new)
    return [c.path for c, _, _ in found]
