"""Tasks on disk, one folder each under WENSHU_HOME/tasks/<id>/:

    task.json      the TaskRecord (goal, folder, steps, ending, result), rewritten after every step
    manifest.json  {path: sha256} of the user's folder when the task copied it (apply checks it)
    work/          the scratch copy the agent reads, writes and runs commands in

The user's folder is only read until the user applies the result, so an interrupted task leaves it as it
was; discarding a task removes its folder here and nothing else."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import time
from pathlib import Path

from wenshu.tasks.endings import EmptyGoal, EmptyWorkspace, TaskNotFound
from wenshu.tasks.record import TaskRecord
from wenshu.workspace.copy import copy_tree
from wenshu.workspace.ignore import Ignore, project_files
from wenshu.workspace.paths import Root

_ID = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$")


class TaskStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def folder(self, task_id: str) -> Path:
        if not _ID.match(task_id or ""):
            raise TaskNotFound(str(task_id)[:80])
        return self.root / task_id

    def work(self, task_id: str) -> Path:
        return self.folder(task_id) / "work"

    def create(self, workspace: str | Path, goal: str, *, step_limit: int, test_command: str, max_copy_mb: int,
               user_id: str = "local") -> TaskRecord:
        """Check the goal and the folder, copy the folder, store the new task (status queued)."""
        goal = (goal or "").strip()
        if not goal:
            raise EmptyGoal()
        original = Root(workspace)
        if not project_files(original.path, Ignore(original.path)):
            raise EmptyWorkspace(str(original.path))
        task_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
        folder = self.folder(task_id)
        folder.mkdir(parents=True)
        try:
            manifest = copy_tree(original.path, folder / "work", max_mb=max_copy_mb)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        _write_json(folder / "manifest.json", manifest)
        task = TaskRecord(id=task_id, goal=goal, workspace=str(original.path), user_id=user_id,
                          step_limit=step_limit, test_command=test_command)  # fmt: skip
        self.save(task)
        return task

    def save(self, task: TaskRecord) -> None:
        task.updated_at = time.time()
        _write_json(self.folder(task.id) / "task.json", task.model_dump(mode="json"))

    def load(self, task_id: str) -> TaskRecord:
        path = self.folder(task_id) / "task.json"
        if not path.is_file():
            raise TaskNotFound(task_id)
        return TaskRecord.model_validate_json(path.read_text(encoding="utf-8"))

    def manifest(self, task_id: str) -> dict[str, str]:
        return json.loads((self.folder(task_id) / "manifest.json").read_text(encoding="utf-8"))

    def list(self, user_id: str | None = None) -> list[TaskRecord]:
        """Every task (of `user_id` when given), newest first; a folder that cannot be read is left out."""
        out = []
        if self.root.is_dir():
            for path in sorted(self.root.iterdir(), reverse=True):
                try:
                    task = self.load(path.name)
                except (TaskNotFound, ValueError, OSError):
                    continue
                if user_id is None or task.user_id == user_id:
                    out.append(task)
        return out

    def discard(self, task_id: str) -> None:
        folder = self.folder(task_id)
        if not folder.is_dir():
            raise TaskNotFound(task_id)
        shutil.rmtree(folder)


def _write_json(path: Path, data) -> None:
    """Write whole or not at all: an interruption never leaves a half-written task.json."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
