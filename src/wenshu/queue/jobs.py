"""What the API processes share for every kind of queued task (question, kb_upload, workspace): the queues,
putting a job on one, reading a user's job back, whether a job is still waiting or running, the caller's own
tasks for `GET /api/tasks`, and the counts by kind and state for `/metrics`.

    jobs.enqueue("kb_upload", payload, job_id=..., user_id=..., meta={...})
    jobs.job(job_id, user_id)          # the job, or None when unknown or another user's
    jobs.active(job_id)                # queued or running (any user's: the caller checked ownership)
    jobs.stop(job_id)                  # a stop asked of it (its worker's lease reads it)
    jobs.listed(user_id, lang)         # the user's queued tasks, newest first
    jobs.counts()                      # {(kind, state): n}, None while Redis is down

Each user's tasks are remembered in one sorted set (`wenshu:user-tasks:{user}`, scored by the time they were
queued) for as long as their jobs are kept (`queue_keep_s`); the rest is RQ's own state.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import JobStatus
from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry

from wenshu.queue.errors import QueueUnavailable
from wenshu.queue.keys import TaskKeys
from wenshu.queue.record import FUNCTIONS, QUEUES, SERIALIZER, TaskJob, kind_of, task_view
from wenshu.storage.redis_link import RedisLink, redact

WAITING = (JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED, JobStatus.CREATED)
STATES = ("queued", "running", "finished", "failed")


class JobQueues:
    def __init__(self, link: RedisLink, settings):
        self.link = link
        self.client = link.client
        self.settings = settings
        self.where = redact(link.url)
        self.keys = TaskKeys(self.client, settings.queue_keep_s)
        self.queues = {kind: Queue(name, connection=self.client, serializer=SERIALIZER, job_class=TaskJob)
                       for kind, name in QUEUES.items()}

    @contextmanager
    def _redis(self):
        try:
            yield
        except (redis.ConnectionError, redis.TimeoutError):
            raise QueueUnavailable(self.where) from None

    def enqueue(self, kind: str, payload: dict, *, job_id: str, user_id: str, meta: dict, retries: int,
                description: str, rerun: bool = False) -> bool:
        """Put one job on the kind's queue (JSON arguments) and remember it among the user's tasks. `rerun`: the
        id may be a finished job's (a workspace task resumed), which is replaced, with no stop asked of it;
        False, and nothing queued, while that job is still waiting or running."""
        s = self.settings
        meta = {"kind": kind, "user_id": user_id, "lost": 0, **meta}
        with self._redis():
            old = self.fetch(job_id) if rerun else None
            if old is not None:
                if old.get_status() in WAITING or old.get_status() == JobStatus.STARTED:
                    return False
                old.delete()
                self.keys.clear_cancel(job_id)
            self.queues[kind].enqueue_call(FUNCTIONS[kind], args=[payload], job_id=job_id, meta=meta,
                                           timeout=s.queue_task_timeout_s, result_ttl=s.queue_keep_s,
                                           failure_ttl=s.queue_keep_s, description=description,
                                           retry=Retry(max=retries) if retries else None)
            self._remember(user_id, job_id)
        return True

    def _remember(self, user_id: str, job_id: str) -> None:
        key, now = f"wenshu:user-tasks:{user_id}", time.time()
        with self.client.pipeline() as pipe:
            pipe.zadd(key, {job_id: now})
            pipe.zremrangebyscore(key, 0, now - self.keys.keep_s)
            pipe.expire(key, self.keys.keep_s)
            pipe.execute()

    def fetch(self, job_id: str) -> TaskJob | None:
        try:
            return TaskJob.fetch(job_id, connection=self.client, serializer=SERIALIZER)
        except NoSuchJobError:
            return None

    def job(self, job_id: str, user_id: str, kind: str | None = None) -> TaskJob | None:
        """The user's job (of `kind` when given); None when unknown, another user's or another kind."""
        with self._redis():
            job = self.fetch(job_id)
        if job is None or job.meta.get("user_id") != user_id or (kind is not None and kind_of(job) != kind):
            return None
        return job

    def active(self, job_id: str) -> bool:
        """Whether the job is queued or running (False while Redis is down: nothing can be known)."""
        def look(_client) -> bool:
            job = self.fetch(job_id)
            return job is not None and (job.get_status() in WAITING or job.get_status() == JobStatus.STARTED)

        return self.link.run(look, lambda: False)

    def stop(self, job_id: str) -> bool:
        """Ask a waiting or running job to stop before its next step (the worker's lease reads the cancel key);
        whether it was waiting or running."""
        with self._redis():
            if not self.active(job_id):
                return False
            self.keys.request_cancel(job_id)
            return True

    def listed(self, user_id: str, lang: str, kinds: tuple[str, ...] = ("question", "kb_upload")) -> list[dict]:
        """The user's queued tasks of these kinds still kept, newest first, as `GET /api/tasks` lists them."""
        with self._redis():
            ids = [i.decode() for i in self.client.zrevrange(f"wenshu:user-tasks:{user_id}", 0, -1)]
            jobs = TaskJob.fetch_many(ids, connection=self.client, serializer=SERIALIZER) if ids else []
            return [summary(j, lang) for j in jobs if j is not None and kind_of(j) in kinds
                    and j.meta.get("user_id") == user_id]

    def counts(self) -> dict[tuple[str, str], int] | None:
        """Tasks by kind and state, read from RQ's queues and registries (finished and failed ones for as long
        as they are kept); None while Redis is down. Registries are read without RQ's clean-up, which only a
        worker runs (it closes a lost worker's task: host.py)."""
        try:
            out = {}
            for kind, queue in self.queues.items():
                out[(kind, "queued")] = queue.count
                for state, registry in (("running", StartedJobRegistry), ("finished", FinishedJobRegistry),
                                        ("failed", FailedJobRegistry)):
                    out[(kind, state)] = registry(queue=queue).get_job_count(cleanup=False)
            return out
        except redis.RedisError:
            return None


def summary(job: TaskJob, lang: str) -> dict:
    """A queued task in `GET /api/tasks`'s list: what it is and how it stands, without its result."""
    kind, status = kind_of(job), job.get_status(refresh=False)
    out = {"task_id": job.id, "kind": kind,
           "created_at": job.enqueued_at.timestamp() if job.enqueued_at else None,
           "updated_at": job.ended_at.timestamp() if job.ended_at else None}
    if kind == "question":
        view = task_view(job, lang)
        return out | {"status": view["status"], "conversation_id": view["conversation_id"], "error": view.get("error")}
    state = "queued" if status in WAITING else "running" if status == JobStatus.STARTED else \
        "error" if status == JobStatus.FAILED else "done"
    return out | {"status": state, "files": len(job.meta.get("items", []))}
