"""Where each document being worked on in the background stands: the stage working on it now and its counter
(embedding batches, summary segments), read by the task and document routes.

`Progress` keeps it in the process's memory (the embedded default: the ingest and summary threads run in the
server). A team deployment keeps the same in Redis (queue/kb_progress.py), where the worker ingesting a document
writes it and every API process reads it; both have this interface.
"""

from __future__ import annotations


def stage_of(label: str) -> str:
    """The stage a kb progress label names: "embedding a.pdf" -> "embedding"."""
    return label.split(" ", 1)[0]


def counted(now: tuple[str, int, int] | None, status: str) -> dict:
    """{done, total} when the counted stage `now` is the document's status, {} otherwise."""
    stage, done, total = now or ("", 0, 0)
    return {"done": done, "total": total} if stage == status and total else {}


class Progress:
    """Document id -> (stage, done, total), in this process's memory."""

    def __init__(self) -> None:
        self._now: dict[str, tuple[str, int, int]] = {}

    def set(self, doc_id: str, stage: str, done: int, total: int) -> None:
        self._now[doc_id] = (stage, done, total)

    def clear(self, doc_id: str) -> None:
        self._now.pop(doc_id, None)

    def tracker(self, doc_id: str):
        """A kb Progress callback: its label starts with the stage ("embedding a.pdf", "summarizing a.pdf")."""
        return lambda label, done, total: self.set(doc_id, stage_of(label), done, total)

    def stage(self, doc_id: str) -> str:
        return self._now.get(doc_id, ("",))[0]

    def of(self, doc_id: str | None, status: str) -> dict:
        return counted(self._now.get(doc_id or ""), status)
