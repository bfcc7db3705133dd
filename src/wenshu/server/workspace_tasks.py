"""Workspace tasks behind the HTTP API: started, run in worker threads (one at a time by default: the
embedded model answers one call at a time anyway), stopped, resumed, applied and discarded.

The tasks live in the same store as the CLI's (WENSHU_HOME/tasks), so `wenshu task list` shows the ones
started over HTTP and the API can poll a task the CLI runs. A task records who started it; another user
gets 404, exactly as for an unknown id. Workspace tasks read and test a folder on the server's own disk
and run code the model wrote there, so only an admin (the local user, or a token with every grant) may
start or change one (docs/tasks.md), and only in a folder of `workspace_roots` (workspace/roots.py).

In a team deployment (`queue`, a queue.jobs.JobQueues) a task runs on a queue worker instead of a thread
(queue/workspace_work.py), one job per run (start or resume) with the task's id: whether it runs is read
from Redis and a stop goes through the queue's cancel key, so every API process sees and stops it; the
record, its steps and the copy stay in the task store, which the worker writes (same WENSHU_HOME).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor

from wenshu.errors import Forbidden
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.endings import TaskBusy, TaskNotFound, TaskNotResumable
from wenshu.tasks.loop import apply_task, run_unattended
from wenshu.tasks.record import RESUMABLE, TaskRecord
from wenshu.tasks.store import TaskStore
from wenshu.workspace.roots import WorkspaceRoots


class WorkspaceTasks:
    def __init__(self, settings, models: Callable[[], object], *, workers: int = 1, queue=None):
        self.settings = settings
        self.queue = queue
        self.store = TaskStore(settings.home / "tasks")
        self._models = models
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="wenshu-task")
        self._lock = threading.Lock()
        self._stops: dict[str, threading.Event] = {}  # running or queued task id -> its stop flag
        self.overrides: dict = {}  # TaskConfig fields set by the host beyond the settings (tests, benchmarks)

    @staticmethod
    def require_admin(user) -> None:
        if not user.is_admin:
            raise Forbidden("Only an administrator may run workspace tasks or give the assistant a folder: they "
                            "read, test and change folders on the server.",
                            "只有管理员可以运行工作区任务或为助手指定文件夹：它们会读取、测试并修改服务器上的文件夹。")

    def config(self, max_steps: int | None = None) -> TaskConfig:
        return TaskConfig.from_settings(self.settings, **{**self.overrides, "max_steps": max_steps})

    def roots(self) -> WorkspaceRoots:
        return WorkspaceRoots(self.settings.workspace_roots)  # read each time: a root made later counts

    def start(self, user_id: str, workspace: str, goal: str, max_steps: int | None = None) -> TaskRecord:
        config = self.config(max_steps)
        folder = self.roots().check(workspace)
        task = self.store.create(folder, goal, step_limit=config.max_steps, test_command=config.test_command,
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
        if self.queue is not None:
            return self.queue.active(task_id)
        return task_id in self._stops

    def stop(self, task_id: str) -> bool:
        """Ask a running task to stop before its next step; False when it is not running."""
        if self.queue is not None:
            return self.queue.stop(task_id)
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
        if self.queue is not None:
            return self._enqueue(task_id, config)
        with self._lock:
            if task_id in self._stops:
                raise TaskBusy(task_id)
            flag = self._stops[task_id] = threading.Event()
        self._pool.submit(self._work, task_id, config, flag)

    def _enqueue(self, task_id: str, config: TaskConfig) -> None:
        """One job per run, with the task's id (the previous run's finished job is replaced)."""
        task = self.store.load(task_id)
        queued = self.queue.enqueue("workspace", {"task_id": task_id, "config": config.to_json()}, job_id=task_id,
                                    user_id=task.user_id, meta={}, retries=self.settings.queue_retries,
                                    description=f"workspace task {task_id}", rerun=True)
        if not queued:
            raise TaskBusy(task_id)

    def _work(self, task_id: str, config: TaskConfig, flag: threading.Event) -> None:
        try:
            run_unattended(self.store, task_id, self._models, config, stop=flag.is_set)
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


def task_summary(task: TaskRecord, lang: str, running: bool) -> dict:
    """A workspace task in GET /api/tasks's list: what it is and how it stands, without steps or diff."""
    last = task.result.verify if task.result else None
    return {"task_id": task.id, "kind": task.kind, "goal": task.goal, "workspace": task.workspace,
            "status": task.status, "message": task.message(lang), "running": running, "steps": len(task.steps),
            "verify": last, "created_at": task.created_at, "updated_at": task.updated_at}


async def step_events(tasks: WorkspaceTasks, task_id: str, user_id: str, lang: str, ping_s: float,
                      poll_s: float = 0.2) -> AsyncIterator[tuple[str, dict | None]]:
    """For every step, ("decision", {n, action, target, reason}) as soon as it is being taken, then ("step",
    step) with its result (those already taken first); ("done", task) once the task ended; ("ping", None)
    after `ping_s` without an event. Read from the store, so a CLI run can be watched too; a step taken
    between two looks (`poll_s`) gets its decision just before its result."""
    sent, announced, quiet = 0, 0, 0.0
    while True:
        task = tasks.get(task_id, user_id)
        if task is None:
            return
        for step in task.steps[sent:]:
            if step.n > announced:
                yield "decision", {"n": step.n, "action": step.action, "target": step.target, "reason": step.reason}
            yield "step", step.model_dump(mode="json")
            quiet = 0.0
        sent = len(task.steps)
        announced = max(announced, sent)
        if task.status not in ("queued", "running") and not tasks.running(task_id):
            yield "done", task_out(task, lang, False)
            return
        if task.current and task.current.get("n", 0) > announced:
            announced = task.current["n"]
            yield "decision", task.current
            quiet = 0.0
        await asyncio.sleep(poll_s)
        quiet += poll_s
        if quiet >= ping_s:
            yield "ping", None
            quiet = 0.0
