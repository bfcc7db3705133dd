"""A queued question as RQ keeps it, and as `GET /api/tasks/{id}` shows it (the in-process runner's shape:
task_id, status queued|running|done|error|cancelled, progress, conversation_id, result, error).

The job's meta holds who asked (`user_id`), the conversation, the nodes finished so far (`progress`, written
by the worker as they finish), how often a worker answering it was lost (`lost`) and, once it was given up,
the error (`error`, both languages). Its return value is the worker's outcome (`outcome`).
"""

from __future__ import annotations

from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from wenshu.errors import WenshuError
from wenshu.i18n import pick
from wenshu.queue.errors import UnknownTaskFunction, WorkerLost

QUEUE_NAME = "wenshu-questions"
ANSWER_FUNCTION = "wenshu.queue.worker.answer_question"
# each kind of task has its queue (so /metrics counts them by kind from RQ's registries) and its job function
QUEUES = {"question": QUEUE_NAME, "kb_upload": "wenshu-ingests", "workspace": "wenshu-workspace"}
FUNCTIONS = {"question": ANSWER_FUNCTION, "kb_upload": "wenshu.queue.worker.ingest_documents",
             "workspace": "wenshu.queue.worker.run_workspace_task"}
TASK_FUNCTIONS = frozenset(FUNCTIONS.values())
SERIALIZER = JSONSerializer  # never pickle: a job's arguments and results are plain JSON


class TaskJob(Job):
    """RQ's job, refusing to run any function but Wenshu's own tasks (a job someone else put on the queue)."""

    @property
    def func(self):
        if self.func_name not in TASK_FUNCTIONS:
            raise UnknownTaskFunction(self.func_name)
        return super().func


def kind_of(job: Job) -> str:
    """question | kb_upload | workspace (a job queued before kinds existed is a question)."""
    return job.meta.get("kind", "question")


def error_entry(err: WenshuError) -> dict:
    """An error as a job keeps it: its code and both sentences (each reader picks its language)."""
    return {"code": err.code, "en": err.message("en"), "zh": err.message("zh")}


def outcome(status: str, *, response=None, error: WenshuError | None = None, message_id: int | None = None) -> dict:
    """What a worker returns for a question (the job's result)."""
    return {"status": status, "response": response.model_dump(mode="json") if response is not None else None,
            "error": error_entry(error) if error is not None else None, "message_id": message_id}


def localized(entry: dict, lang: str) -> dict:
    return {"code": entry["code"], "message": pick(lang, entry["en"], entry["zh"])}


def _failure(job: Job) -> dict:
    """A failed job's error when host.on_lost left none: a lost worker found by a registry cleanup that ran
    without Wenshu's handler (RQ's own tools), else an internal error (the log has the traceback)."""
    result = job.latest_result()
    abandoned = result is not None and "AbandonedJobError" in (result.exc_string or "")
    return error_entry(WorkerLost(False) if abandoned else WenshuError())


RUNNING = {JobStatus.STARTED: "running", JobStatus.CANCELED: "cancelled", JobStatus.STOPPED: "cancelled",
           JobStatus.FAILED: "error"}


def task_view(job: Job, lang: str) -> dict:
    meta = job.meta
    status = job.get_status(refresh=False)
    out = {"task_id": job.id, "status": RUNNING.get(status, "queued"), "progress": list(meta.get("progress", [])),
           "conversation_id": meta.get("conversation_id"), "worker": job.worker_name, "lost": meta.get("lost", 0)}
    if status == JobStatus.FINISHED:
        result = job.return_value() or {}
        out["status"] = result.get("status", "done")
        response = result.get("response")
        if response is not None:
            out["result"] = response
            if response.get("error"):
                out["error"] = response["error"]
        if result.get("error"):
            out["error"] = localized(result["error"], lang)
    elif status == JobStatus.FAILED:
        out["error"] = localized(meta.get("error") or _failure(job), lang)
    return out
