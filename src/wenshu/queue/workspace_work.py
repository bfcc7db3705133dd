"""A workspace task run on a worker (team deployment; server/workspace_tasks.py queues it).

The task itself lives in the task store under `WENSHU_HOME/tasks` (its record, its steps, and the copy of the
folder it works on), which the API process created when the task was started: the job carries only the task
id and its TaskConfig as JSON. The worker runs it there with its own model, storing every step as it is taken,
so any API process polls it and streams its steps from the same store (`GET /api/tasks/{id}`, `/events`);
a worker must therefore see the API's WENSHU_HOME (same machine, or the folder shared), and the folder the
task was started on for apply (which the API process does). A stop (`DELETE /api/tasks/{id}`) reaches the
worker through the cancel key its lease polls: the task ends `interrupted` before its next step, resumable.

A worker lost mid-task: the retry resumes the task from its stored steps (a `running` task is resumable);
once the retries are spent, the task ends `failed` with `task_worker_lost`, and Resume starts it again.
"""

from __future__ import annotations

from wenshu.queue.errors import TaskWorkerLost
from wenshu.queue.record import outcome
from wenshu.tasks.config import TaskConfig
from wenshu.tasks.loop import run_unattended
from wenshu.tasks.store import TaskStore


class WorkspaceWork:
    def __init__(self, settings, agent, stopped):
        self.store = TaskStore(settings.home / "tasks")
        self.agent = agent
        self.stopped = stopped  # () -> bool: a cancel was asked for, or this attempt was superseded

    def run(self, payload: dict, job) -> dict:
        run_unattended(self.store, payload["task_id"], self.agent.models, TaskConfig.from_json(payload["config"]),
                       stop=self.stopped)
        return outcome("done")

    def on_lost(self, job, retrying: bool) -> None:
        if retrying:
            return
        task = self.store.load((job.args or [{}])[0]["task_id"])
        if task.status in ("queued", "running"):
            task.end("failed", TaskWorkerLost(False))
            task.current = None
            self.store.save(task)
