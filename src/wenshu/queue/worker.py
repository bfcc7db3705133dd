"""`wenshu worker`: one process taking tasks from the queues (questions first, then knowledge-base uploads, then
workspace tasks), one at a time, with the server's Agent.

RQ's `SimpleWorker` runs each job in the worker process itself (no fork per job), so the Agent, the model
and the store are opened once. Two things are added to it:

- **A lease.** RQ's worker renews its claim on a job only between jobs or from a forking parent; a
  `SimpleWorker` would hold a job for its whole timeout. Here a thread renews the claim (RQ's own
  `maintain_heartbeats`) every third of `queue_lease_s` and, every `CANCEL_POLL_S`, looks whether the task
  was cancelled. A worker killed mid-question stops renewing: after `queue_lease_s` RQ's registry cleanup,
  run by any live worker every few seconds, finds the job abandoned, calls the host's `on_lost` and queues
  it again (or fails it once `queue_retries` are spent).
- **Only Wenshu's functions run** (record.TaskJob): a job someone else put on the queue is refused.

The job function, `answer_question`, needs the worker process's Agent and store (its host, host.py): the worker
binds it around each job it performs (`serving`).
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import redis
from rq import Queue, SimpleWorker, get_current_job
from rq.worker import WorkerStatus

from wenshu.queue.keys import CANCEL_POLL_S
from wenshu.queue.record import QUEUES, SERIALIZER, TaskJob

log = logging.getLogger("wenshu.queue")
_HOST: ContextVar = ContextVar("wenshu_worker_host", default=None)


def _host():
    host = _HOST.get()
    if host is None:
        raise RuntimeError("Wenshu's task functions run inside `wenshu worker` only")
    return host


def answer_question(payload: dict) -> dict:
    """The job RQ runs for a queued question (payload: {"request": AgentRequest as JSON, "origin": {"channel"} or
    None}), with the host the worker bound around it (`serving`): the function itself holds no state."""
    return _host().answer(payload, get_current_job())


def ingest_documents(payload: dict) -> dict:
    """The job of a knowledge-base upload (payload: {"collection"}; its documents are in the job's meta)."""
    return _host().ingests.run(payload, get_current_job())


def run_workspace_task(payload: dict) -> dict:
    """The job of a workspace task (payload: {"task_id", "config": TaskConfig as JSON})."""
    return _host().workspaces.run(payload, get_current_job())


@contextmanager
def serving(host) -> Iterator[None]:
    """Run the jobs in this block with `host` (a queue.host.WorkerHost)."""
    token = _HOST.set(host)
    try:
        yield
    finally:
        _HOST.reset(token)


class Lease:
    """While a job runs: renew the worker's claim on it and watch for a cancel request."""

    def __init__(self, worker: AnswerWorker, job):
        self.worker, self.job = worker, job
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wenshu-lease", daemon=True)

    def __enter__(self) -> Lease:
        self.worker.host.cancel.clear()
        self.worker.host.superseded.clear()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        every = self.worker.lease_s / 3
        renew_at = time.monotonic() + every
        while not self._stop.wait(CANCEL_POLL_S):
            try:
                host = self.worker.host
                if host.keys.cancel_requested(self.job.id):
                    host.cancel.set()
                late = time.monotonic() - renew_at
                if late >= 0:
                    if not host.owns(self.job):  # held off past the lease: the question was queued again
                        host.superseded.set()
                        return
                    self.worker.maintain_heartbeats(self.job)
                    renew_at = time.monotonic() + every
                    if late > every:  # the process held this thread off (a long call holding the GIL?)
                        log.warning("the lease of task %s was renewed %.1f s late", self.job.id, late)
            except Exception as exc:  # Redis away for a moment: try again on the next tick
                log.warning("renewing the lease of task %s failed: %s", self.job.id, exc)


class AnswerWorker(SimpleWorker):
    def __init__(self, queues, *, host, lease_s: float, **kwargs):
        super().__init__(queues, **kwargs)
        self.host = host
        self.lease_s = lease_s
        self.push_exc_handler(host.on_lost)

    def get_heartbeat_ttl(self, job) -> int:
        """How long the claim on a running job holds without renewal: the lease, not the job's timeout."""
        return max(1, math.ceil(self.lease_s))

    def prepare_job_execution(self, job, remove_from_intermediate_queue: bool = False) -> None:
        """RQ's preparation, which also gives the worker's own registration the job's short TTL: give it back
        its usual one, so a worker held off for a moment stays registered (only its claim on the job lapses)."""
        super().prepare_job_execution(job, remove_from_intermediate_queue)
        self.heartbeat()

    def handle_job_success(self, job, queue, started_job_registry) -> None:
        """RQ's bookkeeping of a finished job; for a superseded attempt only this worker's own (the job, its
        status and result are the attempt's that replaced it)."""
        if not self.host.superseded.is_set():
            return super().handle_job_success(job, queue, started_job_registry)
        with self.connection.pipeline() as pipeline:
            self.cleanup_execution(job, pipeline=pipeline)
            pipeline.execute()

    def execute_job(self, job, queue) -> None:
        self.prepare_execution(job)
        with Lease(self, job), serving(self.host):
            self.perform_job(job, queue)
        self.set_state(WorkerStatus.IDLE)


def worker_name() -> str:
    return f"{socket.gethostname()}.{os.getpid()}"


def make_worker(client: redis.Redis, host, lease_s: float) -> AnswerWorker:
    """The worker on `client` (its own: RQ lengthens the socket timeout for its blocking dequeue). It looks for
    abandoned jobs (maintenance) and re-registers itself every `tick` seconds, a third of the lease."""
    tick = max(1, round(lease_s / 3))
    queues = [Queue(name, connection=client, serializer=SERIALIZER, job_class=TaskJob)  # questions first
              for name in QUEUES.values()]
    return AnswerWorker(queues, host=host, lease_s=lease_s, connection=client, serializer=SERIALIZER,
                        job_class=TaskJob, name=worker_name(), worker_ttl=15 + tick, maintenance_interval=tick)
