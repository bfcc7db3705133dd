"""The in-process runner: every answer (a plain ask, a stream, a task) runs in a worker thread.

Stopping works through the event callback: the agent reports every node, token and result through
it, and once a run is cancelled the next report raises `RunCancelled` inside the graph. The agent
stores the partial turn as `stopped`, the worker finishes, and nothing keeps running. A model call
that reports nothing while it works (a non-streaming call) is stopped at its end.

Every run also reports a `queue` step to its sink: `started` the moment it is accepted (with how many
answers wait ahead of it), a `progress` event with the new count each time one ahead of it starts, and
finished (`ok`, with the wait in ms) when a worker picks it up. A client thus learns at once that its
question was taken, and sees its place in line move, even when every worker is busy.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from wenshu.contracts import AgentRequest, AgentResponse, Event
from wenshu.errors import ConversationBusy, RunCancelled, WenshuError

log = logging.getLogger("wenshu.server")

# A sink receives ("event", Event) while the run works and ("end", None) once it is over.
Sink = Callable[[str, Any], None]
# What answers a run: the Agent's `ask` unless the run names another (the general assistant's).
Answer = Callable[..., Any]  # (AgentRequest, on_event=EventCallback) -> AgentResponse | AssistantResponse

QUEUE_NODE = "queue"


@dataclass
class Run:
    id: str
    user_id: str
    conversation_id: str
    request: AgentRequest
    sink: Sink | None = None
    answer: Answer | None = None  # None: the data pipeline (Agent.ask)
    status: str = "queued"  # queued | running | done | error | cancelled
    progress: list[str] = field(default_factory=list)
    response: AgentResponse | None = None  # or the assistant's AssistantResponse
    error: WenshuError | None = None
    message_id: int | None = None
    finished_at: float | None = None
    queued_at: float = field(default_factory=time.perf_counter)
    ahead: int = 0  # answers waiting for a worker before this one, when it was accepted
    cancel_event: threading.Event = field(default_factory=threading.Event)
    done_event: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.done_event.is_set()

    def to_task(self, lang: str = "en") -> dict:
        out: dict[str, Any] = {"task_id": self.id, "status": self.status, "progress": list(self.progress),
                               "conversation_id": self.conversation_id}
        if self.response is not None:
            out["result"] = self.response.model_dump(mode="json")
            if self.response.error is not None:
                out["error"] = self.response.error.model_dump()
        if self.error is not None:
            out["error"] = self.error.to_dict(lang)
        return out


class Runner:
    def __init__(self, agent, *, workers: int = 32, keep: int = 500, on_finish: Callable[[Run], None] | None = None):
        self.agent = agent
        self.keep = keep
        self.on_finish = on_finish
        self.workers = max(1, workers)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="wenshu-answer")
        self._lock = threading.Lock()
        self._runs: dict[str, Run] = {}
        self._active: dict[str, Run] = {}  # conversation id -> the run answering in it
        self._finished: deque[str] = deque()
        self._waiting: list[Run] = []  # accepted, not yet taken by a worker, in order
        self._closed = False

    def submit(self, request: AgentRequest, user_id: str, sink: Sink | None = None,
               answer: Answer | None = None) -> Run:
        """Queue one answer; the request must carry its (existing, owned) conversation id."""
        cid = request.conversation_id
        run = Run(id=uuid.uuid4().hex, user_id=user_id, conversation_id=cid,
                  request=request.model_copy(update={"user_id": user_id}), sink=sink, answer=answer)
        with self._lock:
            if self._closed:
                raise RunCancelled()
            if cid in self._active:
                raise ConversationBusy()
            run.ahead = max(0, len(self._active) - self.workers)  # the pool is FIFO
            self._active[cid] = run
            self._runs[run.id] = run
            if run.ahead or len(self._active) > self.workers:
                self._waiting.append(run)
        self._report(run, Event(type="node", node=QUEUE_NODE, status="started", data={"ahead": run.ahead}))
        self._pool.submit(self._work, run)
        return run

    def get(self, run_id: str, user_id: str) -> Run | None:
        """The run, or None when unknown or owned by another user."""
        run = self._runs.get(run_id)
        return run if run is not None and run.user_id == user_id else None

    def active_for(self, conversation_id: str) -> Run | None:
        return self._active.get(conversation_id)

    def active_count(self) -> int:
        return len(self._active)

    def cancel(self, run: Run) -> bool:
        """Ask a run to stop; False when it had already finished."""
        if run.finished:
            return False
        run.cancel_event.set()
        return True

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop every run and wait (bounded) for the workers."""
        with self._lock:
            self._closed = True
            runs = list(self._active.values())
        for run in runs:
            run.cancel_event.set()
        deadline = time.monotonic() + timeout_s
        for run in runs:
            run.done_event.wait(max(0.0, deadline - time.monotonic()))
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _leave_queue(self, run: Run) -> None:
        """`run` was taken by a worker: everyone still waiting hears their new place in line."""
        with self._lock:
            if run not in self._waiting:
                return
            self._waiting.remove(run)
            moved = [(r, i) for i, r in enumerate(self._waiting) if r.ahead != i]
            for r, i in moved:
                r.ahead = i
        for r, i in moved:
            if not r.cancel_event.is_set():
                self._report(r, Event(type="progress", node=QUEUE_NODE, data={"ahead": i}))

    def _work(self, run: Run) -> None:
        self._leave_queue(run)
        try:
            if run.cancel_event.is_set():  # cancelled while queued: nothing was stored
                run.status = "cancelled"
                return
            run.status = "running"
            waited = (time.perf_counter() - run.queued_at) * 1000
            self._report(run, Event(type="node", node=QUEUE_NODE, status="ok", ms=round(waited, 1)))
            response = (run.answer or self.agent.ask)(run.request, on_event=lambda ev: self._on_event(run, ev))
            run.response, run.message_id = response, response.message_id
            run.status = "error" if response.error else "done"
        except RunCancelled:  # the agent stored the turn as stopped
            run.status = "cancelled"
            run.message_id = self._last_assistant_id(run.conversation_id)
        except WenshuError as err:
            run.error, run.status = err, "error"
        except Exception:
            log.exception("answer %s failed", run.id)
            run.error, run.status = WenshuError(), "error"
        finally:
            self._finish(run)

    def _on_event(self, run: Run, event: Event) -> None:
        if run.cancel_event.is_set():
            raise RunCancelled()
        if event.type == "node" and event.status != "started":
            run.progress.append(event.node)
        self._report(run, event)

    @staticmethod
    def _report(run: Run, event: Event) -> None:
        if run.sink is not None:
            run.sink("event", event)

    def _finish(self, run: Run) -> None:
        run.finished_at = time.time()
        with self._lock:
            self._active.pop(run.conversation_id, None)
            self._finished.append(run.id)
            while len(self._finished) > self.keep:
                self._runs.pop(self._finished.popleft(), None)
        run.done_event.set()
        if self.on_finish is not None:
            self.on_finish(run)
        if run.sink is not None:
            run.sink("end", None)

    def _last_assistant_id(self, conversation_id: str) -> int | None:
        try:
            msgs = self.agent.store.conversations.messages(conversation_id)
        except Exception:
            return None
        return next((m.id for m in reversed(msgs) if m.role == "assistant"), None)
