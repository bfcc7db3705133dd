"""Knowledge-base work in the server's background, as tasks polled like the others (`GET /api/tasks/{id}`).

An upload with `background=true` is admitted in the request (checked, kept, given a row: a file that
cannot be added gets its error at once) and answered with a task; one worker thread then ingests the
admitted documents in order. At server start, documents a crash or restart left half ingested are
queued the same way, as a `kb_resume` task. A task's items follow their documents:

    queued -> parsing -> chunking -> embedding -> summarizing -> ready      (or error, or duplicate)

with `done`/`total` for the stage that counts (embedding batches, summary segments). A file that turns
out to be unreadable while it is parsed keeps its error sentence in the task, though its row is gone.
The tasks live in memory (the last KEEP); the documents themselves are in the app store.
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

from wenshu.errors import WenshuError
from wenshu.kb.ingest import WAITING
from wenshu.queue.record import localized

log = logging.getLogger("wenshu.server.kb")

KEEP = 200
FINAL = ("ready", "error", "duplicate", "removed")


@dataclass
class JobItem:
    name: str
    document_id: str | None = None
    outcome: str | None = None  # None until its ingest ended; then added | resumed | duplicate | error
    started: bool = False
    error: object = None  # a WenshuError, or (a queued upload's, queue/record.py) its entry {code, en, zh}


def error_out(err, lang: str) -> dict | None:
    if isinstance(err, dict):
        return localized(err, lang)
    return err.to_dict(lang) if hasattr(err, "to_dict") else None


@dataclass
class KbTask:
    id: str
    kind: str  # kb_upload | kb_resume
    user_id: str | None  # None: the server's own (resume at start), visible to admins
    items: list[JobItem] = field(default_factory=list)
    running: bool = False  # a queued upload's (kb_queued.py): its job is waiting or running
    worker: str | None = None  # a queued upload's: the worker that took it
    lost: int = 0  # a queued upload's: workers lost while running it


class KbJobs:
    """The tasks and the ingest worker; `owner` is the ServerKnowledgeBase (its knowledge base, progress
    and summary worker)."""

    def __init__(self, owner):
        self.owner = owner
        self._tasks: OrderedDict[str, KbTask] = OrderedDict()
        self._queue: queue.Queue[JobItem] = queue.Queue()
        self._waiting: set[str] = set()  # document ids queued or being ingested
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    # -- starting work -------------------------------------------------------------------------------
    def upload(self, user_id: str, files, collection: str) -> KbTask:
        """Admit each (name, bytes) now and queue the admitted ones; `files` may be a generator."""
        kb = self.owner.get()
        task = self._new("kb_upload", user_id)
        for name, data in files:
            admitted = kb.admit(name, data, collection)
            item = JobItem(name, admitted.document.id if admitted.document else None, error=admitted.error)
            task.items.append(item)
            if admitted.status in WAITING and not self.busy(item.document_id):
                self._submit(item)
            else:  # an error, a duplicate, or the same content already queued in this or another upload
                item.outcome = "error" if admitted.error else "duplicate"
        self._submitted(task, collection)
        return task

    def resume(self, documents) -> KbTask:
        """Queue documents left unfinished (resume at server start)."""
        task = self._new("kb_resume", None)
        for doc in documents:
            item = JobItem(doc.name, doc.id)
            task.items.append(item)
            self._submit(item)
        return task

    def _new(self, kind: str, user_id: str | None) -> KbTask:
        task = KbTask(uuid.uuid4().hex, kind, user_id)
        with self._lock:
            self._tasks[task.id] = task
            while len(self._tasks) > KEEP:
                self._tasks.popitem(last=False)
        return task

    def _submitted(self, task: KbTask, collection: str) -> None:
        """Every admitted item of the task was submitted (a queue of workers takes them all at once here)."""

    def _submit(self, item: JobItem) -> None:
        with self._lock:
            self._waiting.add(item.document_id)
            self.owner.progress.set(item.document_id, "queued", 0, 0)
            self._queue.put(item)
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="wenshu-kb-ingest", daemon=True)
                self._worker.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                self._ingest(item)
            except Exception:  # noqa: BLE001 - logged; the next item goes on
                log.exception("ingesting %s failed", item.name)
                item.outcome, item.error = "error", WenshuError()
            finally:
                with self._lock:
                    self._waiting.discard(item.document_id)
                self.owner.progress.clear(item.document_id)

    def _ingest(self, item: JobItem) -> None:
        kb = self.owner.get()
        doc = kb.docs.get(item.document_id)
        if doc is None:  # removed while it waited
            item.outcome = "removed"
            return
        item.started = True
        self.owner.progress.clear(item.document_id)  # no longer queued
        result = kb.ingest(doc, self.owner.progress.tracker(item.document_id))
        if result.error is None:
            self.owner.kick()  # before the outcome: a poll never sees it summarizing with no worker
        item.outcome, item.error = result.status, result.error

    def busy(self, document_id: str | None) -> bool:
        return document_id in self._waiting

    def working(self, task: KbTask, item: JobItem) -> bool:
        """Whether the item's document may still change (queued, ingesting, or a summary may still come)."""
        return self.busy(item.document_id) or self.owner.summarizing()

    # -- reading -------------------------------------------------------------------------------------
    def get(self, task_id: str, user) -> KbTask | None:
        """The task if this user may see it: their own upload, or (admins) the server's resume."""
        task = self._tasks.get(task_id)
        if task is None or not (task.user_id == user.user_id or (task.user_id is None and user.is_admin)):
            return None
        return task

    def item_out(self, task: KbTask, item: JobItem, lang: str) -> dict:
        doc = self.owner.get().docs.get(item.document_id) if item.document_id else None
        if item.outcome in ("error", "duplicate", "removed"):
            status = item.outcome
        elif not item.started and item.outcome is None:
            status = "queued"
        else:
            status = doc.status if doc is not None else "removed"
        out = {"name": item.name, "document_id": item.document_id, "status": status,
               "document": doc.to_dict() if doc is not None else None,
               "error": error_out(item.error, lang)}
        if out["error"] is None and status == "error" and doc is not None and doc.error_message:
            out["error"] = {"code": doc.error_code, "message": doc.error_message}
        out |= self.owner.progress.of(item.document_id, status)
        waiting = self.working(task, item)
        out["finished"] = status in FINAL or (status == "summarizing" and not waiting)
        return out

    def task_out(self, task: KbTask, lang: str) -> dict:
        items = [self.item_out(task, i, lang) for i in task.items]
        running = any(not i["finished"] for i in items)
        return {"task_id": task.id, "kind": task.kind, "status": "running" if running else "done", "items": items}
