"""The server's knowledge base: opened on first use with the agent's embedder, background ingest
(server/kb_jobs.py), a background worker that summarises documents one at a time with the server's
chat model, the progress of both, and the resume at server start.

The summary worker runs while documents wait for their summary (status `summarizing`) and then stops;
`kick` starts it again after an ingest. A document is searchable from its publish on: summaries only add
to it. A failure is logged and leaves the document waiting (its finished segments kept); the next kick
resumes. At start (`resume`), documents a crash left in parsing, chunking or embedding are queued for
ingest and waiting summaries are kicked, so a `kill -9` mid-ingest ends, after a restart, with the
document ready or in error. In a team deployment background uploads run on the queue's workers instead
(kb_queued.py), whose lease and retry take the place of this resume.
"""

from __future__ import annotations

import logging
import threading

from wenshu.kb.progress import Progress
from wenshu.server.kb_jobs import KbJobs

log = logging.getLogger("wenshu.server.kb")

INTERRUPTED = ("parsing", "chunking", "embedding")  # an ingest stopped before its publish


class ServerKnowledgeBase:
    def __init__(self, settings, engine, agent, hooks=None, queue=None):
        """`queue` (a queue.jobs.JobQueues, team deployment): background uploads go to its workers
        (kb_queued.py), with their progress in Redis where every process reads it."""
        self.settings, self.engine, self.agent, self.hooks = settings, engine, agent, hooks
        self.queued = queue is not None
        if queue is None:
            self.progress, self.jobs = Progress(), KbJobs(self)
        else:
            from wenshu.queue.kb_progress import SharedProgress
            from wenshu.server.kb_queued import QueuedKbJobs

            self.progress, self.jobs = SharedProgress(queue.client), QueuedKbJobs(self, queue)
        self._kb = None
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._again = threading.Event()

    def get(self):
        """The KnowledgeBase (raises KbNoEmbedder when embeddings are off)."""
        with self._lock:
            if self._kb is None:
                from wenshu.kb.library import open_knowledge_base

                embedder = getattr(self.agent.recall, "embedder", None)
                self._kb = open_knowledge_base(self.settings, self.engine, embedder=embedder, hooks=self.hooks)
            return self._kb

    def document_out(self, doc) -> dict:
        """A document as the list shows it, with `queued` and the progress of the stage working on it."""
        return {**doc.to_dict(), "queued": self.progress.stage(doc.id) == "queued",
                **self.progress.of(doc.id, doc.status)}

    # -- resume at start -------------------------------------------------------------------------------
    def resume(self) -> threading.Thread:
        """Resume, in the background, what a crash or restart left unfinished (see the module's docstring)."""
        thread = threading.Thread(target=self._resume, name="wenshu-kb-resume", daemon=True)
        thread.start()
        return thread

    def _resume(self) -> None:
        from wenshu.storage.kb_store import KbDocuments

        if self.queued:  # a document in parsing or summarizing may be a worker's now (kb_queued.py)
            return
        try:
            docs = KbDocuments(self.engine)
            interrupted = docs.list(None, INTERRUPTED)
            if not interrupted and not docs.list(None, ("summarizing",)):
                return
            self.get()  # KbNoEmbedder when embeddings are off: nothing can be resumed
            if interrupted:
                task = self.jobs.resume(interrupted)
                log.info("resuming %d unfinished knowledge-base documents (task %s)", len(interrupted), task.id)
            self.kick()
        except Exception:  # noqa: BLE001 - logged; `wenshu kb reindex` resumes them as well
            log.exception("resuming knowledge-base documents failed")

    # -- summaries -------------------------------------------------------------------------------------
    def kick(self) -> None:
        """Summarise waiting documents in the background (no-op when summaries are off)."""
        if not self.settings.kb_summaries:
            return
        with self._lock:
            self._again.set()
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="wenshu-kb-summaries", daemon=True)
                self._worker.start()

    def summarizing(self) -> bool:
        """Whether the summary worker is running (a waiting document may still get its summary)."""
        return self._worker is not None

    def _run(self) -> None:
        while True:
            with self._lock:  # the decision to stop and a kick cannot interleave
                if not self._again.is_set():
                    self._worker = None
                    return
                self._again.clear()
            try:
                kb, models = self.get(), self.agent.models()
                for doc in kb.pending_summaries():
                    try:
                        kb.summarize_document(doc, models, self.progress.tracker(doc.id))
                    finally:
                        self.progress.clear(doc.id)
            except Exception:  # noqa: BLE001 - logged; the documents stay searchable and wait for the next kick
                log.exception("summarising knowledge-base documents failed")

    def join(self, timeout: float | None = None) -> None:
        """Wait for the summary worker to finish (tests, shutdown)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
