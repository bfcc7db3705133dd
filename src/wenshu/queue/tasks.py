"""The API processes' side of the task queue: submit a question, read it back, cancel it.

    queue = TaskQueue(link, settings)            # link: the process's storage.redis_link.RedisLink
    task_id = queue.submit(request)              # QueueUnavailable when Redis does not answer, never a hang
    queue.view(task_id, user_id, lang)           # as GET /api/tasks/{id} answers it, or None (unknown or not theirs)
    queue.cancel(task_id, user_id, lang)         # as DELETE answers it, or None

Every API process reads every task (its state is in Redis, not in the process that took it), and another
user's task is answered exactly like an unknown one.
"""

from __future__ import annotations

import time
import uuid

from rq.job import JobStatus

from wenshu.contracts import AgentRequest
from wenshu.errors import ConversationBusy
from wenshu.queue.jobs import WAITING, JobQueues
from wenshu.queue.record import TaskJob, task_view

CANCEL_WAIT_S = 10.0


class TaskQueue(JobQueues):
    """The question tasks; the other kinds' jobs go through JobQueues (server/kb_queued.py, workspace_tasks.py)."""

    def submit(self, request: AgentRequest, origin: dict | None = None) -> str:
        """Queue the question (its conversation must exist and belong to request.user_id); its task id."""
        s, task_id, cid = self.settings, uuid.uuid4().hex, request.conversation_id
        payload = {"request": request.model_dump(mode="json"), "origin": origin}
        with self._redis():
            if not self.keys.hold_conversation(cid, task_id) and (
                    self._holder_running(cid) or not self.keys.hold_conversation(cid, task_id)):
                raise ConversationBusy()
            try:
                self.enqueue("question", payload, job_id=task_id, user_id=request.user_id,
                             meta={"conversation_id": cid, "progress": []}, retries=s.queue_retries,
                             description=f"question in {cid}")
            except BaseException:
                self.keys.release_conversation(cid, task_id)
                raise
        return task_id

    def busy(self, conversation_id: str) -> bool:
        """Whether a queued task holds the conversation (False while Redis is down: in-process answers go on
        without the queue, and do not wait on Redis more than once per the link's retry interval)."""
        return self.link.run(lambda _: self._holder_running(conversation_id), lambda: False)

    def _holder_running(self, conversation_id: str) -> bool:
        """Whether the task holding the conversation is queued or running; a hold its task left behind when it
        ended without letting go (its registry cleaned by a tool other than a Wenshu worker) is dropped."""
        holder = self.keys.conversation_task(conversation_id)
        if holder is None:
            return False
        job = self.fetch(holder)
        status = job.get_status() if job is not None else None
        if status in WAITING or status == JobStatus.STARTED:
            return True
        self.keys.release_conversation(conversation_id, holder)
        return False

    def _job(self, task_id: str, user_id: str) -> TaskJob | None:
        return self.job(task_id, user_id, "question")

    def view(self, task_id: str, user_id: str, lang: str) -> dict | None:
        with self._redis():
            job = self._job(task_id, user_id)
            return task_view(job, lang) if job is not None else None

    def cancel(self, task_id: str, user_id: str, lang: str) -> dict | None:
        """Stop a queued task at once, a running one before its next step (waiting up to CANCEL_WAIT_S for its
        worker to store the stopped turn); a finished one is left as it is."""
        with self._redis():
            job = self._job(task_id, user_id)
            if job is None:
                return None
            status = job.get_status()
            if status in WAITING or status == JobStatus.STARTED:
                self.keys.request_cancel(task_id)
            if status in WAITING:
                job.cancel()
                self.keys.release_conversation(job.meta.get("conversation_id"), task_id)
            deadline = time.monotonic() + CANCEL_WAIT_S
            while job.get_status() == JobStatus.STARTED and time.monotonic() < deadline:
                time.sleep(0.05)
            job.refresh()
            return task_view(job, lang)

    def delivered(self, task_id: str) -> dict | None:
        """A channel task's answer once its worker left it for the waiting webhook (keys.py)."""
        with self._redis():
            return self.keys.handed_over(task_id)

    def leave_to_push(self, task_id: str) -> dict | None:
        with self._redis():
            return self.keys.leave_to_push(task_id)
