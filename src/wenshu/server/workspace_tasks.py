"""Workspace tasks behind the HTTP API: started, run in worker threads (one at a time by default: the
embedded model answers one call at a time anyway), stopped, resumed, applied and discarded.

The tasks live in the same store as the CLI's (WENSHU_HOME/tasks), so `wenshu task list` shows the ones
started over HTTP and the API can poll a task the CLI runs. A task records who started it; another user
gets 404, exactly as for an unknown id. Workspace tasks read and test a folder on the server's own disk
and run code the model wrote there, so only an admin (the local user, or a token with every grant) may
start or change one (docs/tasks.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor

from wenshu.errors import Forbidden, WenshuError
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.endings import TaskBusy, TaskNotFound, TaskNotResumable
from wenshu.tasks.loop import apply_task, run_task
from wenshu.tasks.record import RESUMABLE, TaskRecord
from wenshu.tasks.store import TaskStore

log = logging.getLogger("wenshu.server")


class WorkspaceTasks:
    def __init__(self, settings, models: Callable[[], object], *, workers: int = 1):
        self.settings = settings
        self.store = TaskStore(settings.home / "tasks")
        self._models = models
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="wenshu-task")
        self._lock = threading.Lock()
        self._stops: dict[str, threading.Event] = {}  # running or queued task id -> its stop flag
        self.overrides: dict = {}  # TaskConfig fields set by the host beyond the settings (tests, benchmarks)

    @staticmethod
    def require_admin(user) -> None:
        if not user.is_admin:
            raise Forbidden("Only an administrator may run workspace tasks: they read, test and change folders on "
                            "the server.", "只有管理员可以运行工作区任务：它们会读取、测试并修改服务器上的文件夹。")

    def config(self, max_steps: int | None = None) -> TaskConfig:
        return TaskConfig.from_settings(self.settings, **{**self.overrides, "max_steps": max_steps})

    def start(self, user_id: str, workspace: str, goal: str, max_steps: int | None = None) -> TaskRecord:
        config = self.config(max_steps)
        task = self.store.create(workspace, goal, step_limit=config.max_steps, test_command=config.test_command,
                                 max_copy_mb=config.max_copy_mb, user_id=user_id)  # fmt: skip
        self._submit(task.id, config)
        return task

    def get(self, task_id: str, user_id: str) -> TaskRecord | None:
        """The user's task, or None when unknown or another user's."""
        try:
            task = self.store.load(task_id)
        except (TaskNotFound, ValueError, OSError):
            return None
        return task if task.user_id == user_id else None

    def running(self, task_id: str) -> bool:
        return task_id in self._stops

    def stop(self, task_id: str) -> bool:
        """Ask a running task to stop before its next step; False when it is not running."""
        flag = self._stops.get(task_id)
        if flag is not None:
            flag.set()
        return flag is not None

    def resume(self, task: TaskRecord, max_steps: int | None = None) -> None:
        if self.running(task.id):
            raise TaskBusy(task.id)
        if task.status not in RESUMABLE:
            raise TaskNotResumable(task.id, task.status)
        self._submit(task.id, self.config(max_steps))

    def apply(self, task: TaskRecord, force: bool = False) -> TaskRecord:
        if self.running(task.id):
            raise TaskBusy(task.id)
        return apply_task(self.store, task.id, force=force)

    def discard(self, task: TaskRecord) -> None:
        if self.running(task.id):
            raise TaskBusy(task.id)
        self.store.discard(task.id)

    def _submit(self, task_id: str, config: TaskConfig) -> None:
        with self._lock:
            if task_id in self._stops:
                raise TaskBusy(task_id)
            flag = self._stops[task_id] = threading.Event()
        self._pool.submit(self._work, task_id, config, flag)

    def _work(self, task_id: str, config: TaskConfig, flag: threading.Event) -> None:
        try:
            run_task(self.store, task_id, self._models(), config, stop=flag.is_set)
        except Exception as err:  # an unexpected failure (or no model at all): the task says so, resumable
            if not isinstance(err, WenshuError):
                log.exception("workspace task %s failed", task_id)
            task = self.store.load(task_id)
            if task.status in ("queued", "running"):
                task.end("failed", err if isinstance(err, WenshuError) else WenshuError())
                self.store.save(task)
        finally:
            with self._lock:
                self._stops.pop(task_id, None)

    def close(self) -> None:
        for flag in list(self._stops.values()):
            flag.set()
        self._pool.shutdown(wait=False, cancel_futures=True)


def task_out(task: TaskRecord, lang: str, running: bool) -> dict:
    """What GET /api/tasks/{id} answers for a workspace task."""
    out = task.model_dump(mode="json", exclude={"opened", "partial", "written"})
    out |= {"task_id": task.id, "message": task.message(lang), "running": running}
    return out


async def step_events(tasks: WorkspaceTasks, task_id: str, user_id: str, lang: str, ping_s: float,
                      poll_s: float = 0.2) -> AsyncIterator[tuple[str, dict | None]]:
    """("step", step) for every step, those already taken first, then ("done", task) once it ended;
    ("ping", None) after `ping_s` without a step. Read from the store, so a CLI run can be watched too."""
    sent, quiet = 0, 0.0
    while True:
        task = tasks.get(task_id, user_id)
        if task is None:
            return
        for step in task.steps[sent:]:
            yield "step", step.model_dump(mode="json")
            quiet = 0.0
        sent = len(task.steps)
        if task.status not in ("queued", "running") and not tasks.running(task_id):
            yield "done", task_out(task, lang, False)
            return
        await asyncio.sleep(poll_s)
        quiet += poll_s
        if quiet >= ping_s:
            yield "ping", None
            quiet = 0.0
