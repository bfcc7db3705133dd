"""A knowledge-base upload ingested on a worker (team deployment; server/kb_queued.py queues it).

The API process admitted each file in the request: checked it, kept its copy under `settings.kb_dir`
(`WENSHU_HOME/kb`) and gave it a document row in the app store. The job carries JSON only: the task's
items (`meta["items"]`: name, document id, outcome, started, error) and nothing of the files themselves; the
worker reads each admitted file from that folder, so a worker must see the API's WENSHU_HOME (same machine,
or the folder shared) and the same app store.

Each waiting document is ingested in turn (kb.ingest: parse, chunk, embed, then publish in one transaction),
its stage and counter going to the shared progress (queue/kb_progress.py) and its outcome to the job's meta
as soon as it has one; then the documents of the task waiting for their summary are summarised (summaries
on). A worker lost mid-way (kill -9): the retry skips the documents with an outcome and ingests the others
again, which resumes them (vectors already written with the same content are not embedded again; a document
is searchable only from its publish, so nothing half-done is ever found); once the retries are spent, the
documents still without an outcome end in error with `task_worker_lost`.
"""

from __future__ import annotations

import logging
import threading

from wenshu.errors import WenshuError
from wenshu.queue.errors import TaskWorkerLost
from wenshu.queue.kb_progress import SharedProgress
from wenshu.queue.record import error_entry, outcome

log = logging.getLogger("wenshu.queue")


class IngestWork:
    def __init__(self, settings, store, agent, progress: SharedProgress):
        self.settings, self.store, self.agent, self.progress = settings, store, agent, progress
        self._kb = None
        self._lock = threading.Lock()

    def kb(self):
        with self._lock:
            if self._kb is None:
                from wenshu.kb.library import open_knowledge_base

                embedder = getattr(self.agent.recall, "embedder", None)
                self._kb = open_knowledge_base(self.settings, self.store.engine, embedder=embedder)
            return self._kb

    def run(self, payload: dict, job) -> dict:
        kb = self.kb()
        items = job.meta.setdefault("items", payload.get("items", []))
        for item in items:
            if item.get("outcome") is None:
                self._ingest(kb, item, job)
        if self.settings.kb_summaries:
            ours = {i["document_id"] for i in items if i.get("outcome") in ("added", "resumed")}
            for doc in kb.pending_summaries():
                if doc.id in ours:
                    try:
                        kb.summarize_document(doc, self.agent.models(), self.progress.tracker(doc.id))
                    except Exception:  # noqa: BLE001 - logged; the document stays searchable, its summary waits
                        log.exception("summarising %s failed", doc.name)
                    finally:
                        self.progress.clear(doc.id)
        return outcome("done")

    def _ingest(self, kb, item: dict, job) -> None:
        doc = kb.docs.get(item["document_id"])
        if doc is None:  # removed while it waited
            item["outcome"] = "removed"
            job.save_meta()
            return
        item["started"] = True
        job.save_meta()
        self.progress.clear(doc.id)  # no longer queued
        try:
            result = kb.ingest(doc, self.progress.tracker(doc.id))
            item["outcome"] = result.status
            item["error"] = error_entry(result.error) if result.error is not None else None
        except Exception:  # noqa: BLE001 - logged; the next document goes on
            log.exception("ingesting %s failed", item.get("name"))
            item["outcome"], item["error"] = "error", error_entry(WenshuError())
        finally:
            self.progress.clear(doc.id)
        job.save_meta()

    def on_lost(self, job, retrying: bool) -> None:
        """The lost attempt's documents: resumed by the retry, or (retries spent) ended in error."""
        if retrying:
            return
        err = TaskWorkerLost(False)
        for item in job.meta.get("items", []):
            if item.get("outcome") is None:
                item["outcome"], item["error"] = "error", error_entry(err)
                if item.get("document_id"):
                    self.store_error(item["document_id"], err)
        job.meta["error"] = error_entry(err)

    def store_error(self, doc_id: str, err: WenshuError) -> None:
        """An unfinished document given up: in error (never searchable; `wenshu kb reindex` resumes it)."""
        docs = self.kb().docs
        doc = docs.get(doc_id)
        if doc is not None and not doc.searchable:
            docs.update(doc_id, status="error", error_code=err.code, error_message=err.en)
        self.progress.clear(doc_id)
