"""Knowledge-base uploads ingested by the task queue's workers (a team deployment: WENSHU_REDIS_URL set), with the
tasks and items of the in-process KbJobs (kb_jobs.py), so `GET /api/tasks/{id}` answers the same fields from
any API process (the web UI's upload toast polls them).

The request admits each file as in-process (kb.admit: checked, kept under `settings.kb_dir`, given a document
row; an error or a duplicate is its item's outcome at once) and queues one job for the task's waiting
documents on the `wenshu-ingests` queue (queue/kb_work.py ingests them). The job holds JSON only: the items
(name, document id, outcome, started, error) in its meta, where the worker writes each outcome; stages and
counters go to the shared progress in Redis (queue/kb_progress.py), which also tells an upload of content
already waiting that it is a duplicate. The kept files are read by the worker from `kb_dir`: a worker must
see the API's WENSHU_HOME (the same machine is the supported case).

At server start nothing is resumed here: a document in `parsing`/`embedding` may be a worker's current one,
and a lost worker's upload is retried by the queue itself. An upload given up (its retries spent) leaves its
unfinished documents in error; `wenshu kb reindex` ingests them again.
"""

from __future__ import annotations

import uuid

from rq.job import JobStatus

from wenshu.queue.jobs import WAITING, JobQueues
from wenshu.queue.record import error_entry
from wenshu.server.kb_jobs import JobItem, KbJobs, KbTask


class QueuedKbJobs(KbJobs):
    def __init__(self, owner, jobs: JobQueues):
        super().__init__(owner)
        self.jobs = jobs

    def _new(self, kind: str, user_id: str | None) -> KbTask:
        return KbTask(uuid.uuid4().hex, kind, user_id)

    def _submit(self, item: JobItem) -> None:
        self.owner.progress.set(item.document_id, "queued", 0, 0)  # busy from now on: a second copy is a duplicate

    def _submitted(self, task: KbTask, collection: str) -> None:
        items = [_entry(i) for i in task.items]
        waiting = [i for i in task.items if i.outcome is None]
        if not waiting:
            return
        try:
            self.jobs.enqueue("kb_upload", {"collection": collection}, job_id=task.id, user_id=task.user_id,
                              meta={"items": items}, retries=self.jobs.settings.queue_retries,
                              description=f"knowledge-base upload of {len(waiting)} files")
        except BaseException:
            for item in waiting:
                self.owner.progress.clear(item.document_id)
            raise
        task.running = True

    def resume(self, documents) -> KbTask:
        raise NotImplementedError("a team deployment's queue retries a lost worker's upload itself")

    def busy(self, document_id: str | None) -> bool:
        return bool(document_id) and self.owner.progress.stage(document_id) != ""

    def working(self, task: KbTask, item: JobItem) -> bool:
        return task.running

    def get(self, task_id: str, user) -> KbTask | None:
        job = self.jobs.job(task_id, user.user_id, "kb_upload")
        if job is None:
            return None
        status = job.get_status(refresh=False)
        return KbTask(job.id, "kb_upload", user.user_id, [JobItem(**i) for i in job.meta.get("items", [])],
                      running=status in WAITING or status == JobStatus.STARTED, worker=job.worker_name,
                      lost=job.meta.get("lost", 0))

    def task_out(self, task: KbTask, lang: str) -> dict:
        return super().task_out(task, lang) | {"worker": task.worker, "lost": task.lost}


def _entry(item: JobItem) -> dict:
    error = item.error if isinstance(item.error, dict) or item.error is None else error_entry(item.error)
    return {"name": item.name, "document_id": item.document_id, "outcome": item.outcome, "started": item.started,
            "error": error}
