"""The server's knowledge base: opened on first use with the agent's embedder, and a background worker
that summarises new documents one at a time with the server's chat model.

The worker runs while documents wait for their summary (status `summarizing`) and then stops; `kick`
starts it again after an upload. A document is searchable from its upload on: summaries only add to it.
A failure is logged and leaves the document waiting (its finished segments kept); the next kick resumes.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("wenshu.server.kb")


class ServerKnowledgeBase:
    def __init__(self, settings, engine, agent):
        self.settings, self.engine, self.agent = settings, engine, agent
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
                self._kb = open_knowledge_base(self.settings, self.engine, embedder=embedder)
            return self._kb

    def kick(self) -> None:
        """Summarise waiting documents in the background (no-op when summaries are off)."""
        if not self.settings.kb_summaries:
            return
        with self._lock:
            self._again.set()
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="wenshu-kb-summaries", daemon=True)
                self._worker.start()

    def _run(self) -> None:
        while True:
            with self._lock:  # the decision to stop and a kick cannot interleave
                if not self._again.is_set():
                    self._worker = None
                    return
                self._again.clear()
            try:
                self.get().summarize(self.agent.models())
            except Exception:  # noqa: BLE001 - logged; the documents stay searchable and wait for the next kick
                log.exception("summarising knowledge-base documents failed")

    def join(self, timeout: float | None = None) -> None:
        """Wait for the worker to finish (tests, shutdown)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
