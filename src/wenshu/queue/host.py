"""What a worker process answers with: the same Agent, settings and app store as the server's, and the
bookkeeping around each queued question.

- `answer` runs one question through `Agent.ask`, which stores the question and the answer in its
  conversation exactly as an in-process run does; nodes finished go to the job's `progress` as they finish;
  a cancel request (`DELETE /api/tasks/{id}`) stops it before its next step (the turn is stored as stopped).
- `on_lost` is RQ's exception handler for a job whose worker stopped renewing its lease (a `kill -9`, a
  crash, a machine gone): another worker's maintenance finds it. The lost attempt's open turn (the question
  with no answer) is closed with a `task_worker_lost` message, so the conversation keeps every message and
  stays question/answer; RQ then queues the job again while `queue_retries` allow (the retry stores the
  question again with its answer), and else marks it failed with that message.
- A worker held off longer than its lease (stopped, frozen) finds, when it runs again, that its question was
  queued again: the attempt stops without writing (`AttemptSuperseded`), and RQ records nothing for it.
- A question that came from a chat channel is handed to the webhook still waiting for it, or pushed to the
  channel (keys.py, push.py).
- Knowledge-base uploads and workspace tasks run with the same host (kb_work.py, workspace_work.py); a lost
  worker's one is retried the same way (each resumes where it was) and else ended with `task_worker_lost`.
"""

from __future__ import annotations

import logging
import threading

from rq.exceptions import AbandonedJobError

from wenshu.contracts import AgentRequest, AgentResponse
from wenshu.errors import RunCancelled, WenshuError
from wenshu.i18n import detect_lang
from wenshu.queue.errors import TaskWorkerLost, WorkerLost
from wenshu.queue.kb_progress import SharedProgress
from wenshu.queue.kb_work import IngestWork
from wenshu.queue.keys import TaskKeys
from wenshu.queue.push import push_answer
from wenshu.queue.record import error_entry, kind_of, outcome
from wenshu.queue.workspace_work import WorkspaceWork

log = logging.getLogger("wenshu.queue")


class AttemptSuperseded(BaseException):
    """Raised in a running answer whose lease ran out while its worker was held off (a stopped process, a frozen
    VM): the question was queued again and another attempt answers it, so this one must store nothing more.
    A BaseException, so that no layer turns it into an answer or a stopped turn (they catch Exception and
    WenshuError)."""


class WorkerHost:
    def __init__(self, settings, store, agent, keys: TaskKeys):
        self.settings = settings
        self.store = store
        self.agent = agent
        self.keys = keys
        self.cancel = threading.Event()  # set by the worker's lease thread when the running task is cancelled
        self.superseded = threading.Event()  # set when this attempt's lease ran out and the question was requeued
        self.ingests = IngestWork(settings, store, agent, SharedProgress(keys.client))
        self.workspaces = WorkspaceWork(settings, agent, lambda: self.cancel.is_set() or self.superseded.is_set())

    def owns(self, job) -> bool:
        """Whether the job is still this attempt's: RQ's job hash still says started, by this worker."""
        status, worker = self.keys.client.hmget(job.key, "status", "worker_name")
        return status == b"started" and worker is not None and worker.decode() == job.worker_name

    def answer(self, payload: dict, job) -> dict:
        request = AgentRequest.model_validate(payload["request"])
        cid = request.conversation_id
        try:
            result = self._run(request, job)
        except AttemptSuperseded:  # another attempt answers it: this one writes nothing more
            self.superseded.set()
            log.warning("task %s was queued again while this worker was held off; this attempt stops", job.id)
            return outcome("superseded")
        self.keys.release_conversation(cid, job.id)
        self._deliver(payload.get("origin"), job.id, cid, result, detect_lang(request.message))
        return result

    def _run(self, request: AgentRequest, job) -> dict:
        if self.keys.cancel_requested(job.id):  # cancelled just as it was taken: nothing stored
            return outcome("cancelled")
        if job.retries_left is not None and job.retries_left < self.settings.queue_retries:  # a retry: the lost
            lang = detect_lang(request.message)  # attempt's turn is closed even if on_lost did not run
            self._close_open_turn(request.conversation_id, WorkerLost(True), lang)

        def on_event(event) -> None:
            if self.superseded.is_set():
                raise AttemptSuperseded()
            if self.cancel.is_set():
                raise RunCancelled()
            if event.type == "node" and event.status != "started":
                if not self.owns(job):  # never write over the meta of the attempt that replaced this one
                    raise AttemptSuperseded()
                job.meta.setdefault("progress", []).append(event.node)
                job.save_meta()

        try:
            response = self.agent.ask(request, on_event=on_event)
        except RunCancelled:  # the agent stored the turn as stopped
            return outcome("cancelled", message_id=self._last_assistant(request.conversation_id))
        except WenshuError as err:
            return outcome("error", error=err)
        except Exception:
            log.exception("queued question %s failed", job.id)
            return outcome("error", error=WenshuError())
        return outcome("error" if response.error else "done", response=response, message_id=response.message_id)

    def on_lost(self, job, exc_type, exc_value, traceback) -> bool:
        """RQ exception handler: only a lost worker (AbandonedJobError) is ours; True lets the next handler run."""
        if exc_type is None or not issubclass(exc_type, AbandonedJobError):
            return True
        retrying = bool(job.retries_left)
        if kind_of(job) != "question":
            return self._other_lost(job, retrying)
        err, cid = WorkerLost(retrying), job.meta.get("conversation_id")
        payload = (job.args or [{}])[0]
        lang = detect_lang(payload.get("request", {}).get("message", ""))
        log.warning("the worker answering task %s in %s was lost; %s", job.id, cid,
                    "it is queued again" if retrying else "it is given up")
        self._close_open_turn(cid, err, lang)
        job.meta.update(progress=[], lost=job.meta.get("lost", 0) + 1)
        if not retrying:
            job.meta["error"] = error_entry(err)
            self.keys.release_conversation(cid, job.id)
            self._deliver(payload.get("origin"), job.id, cid, outcome("error", error=err), lang)
        job.save_meta()
        return True

    def _other_lost(self, job, retrying: bool) -> bool:
        kind = kind_of(job)
        log.warning("the worker running %s task %s was lost; %s", kind, job.id,
                    "it is queued again" if retrying else "it is given up")
        (self.ingests if kind == "kb_upload" else self.workspaces).on_lost(job, retrying)
        job.meta["lost"] = job.meta.get("lost", 0) + 1
        if not retrying:
            job.meta.setdefault("error", error_entry(TaskWorkerLost(False)))
        job.save_meta()
        return True

    def _close_open_turn(self, cid: str, err: WenshuError, lang: str) -> None:
        """The lost attempt's question, stored with no answer, gets the error as its answer."""
        conv = self.store.conversations
        messages = conv.messages(cid)
        if messages and messages[-1].role == "user":
            response = AgentResponse(conversation_id=cid, answer=err.message(lang), error=err.to_dict(lang))
            conv.add_message(cid, "assistant", response.answer, status="error",
                             payload=response.model_dump(mode="json", exclude={"message_id"}))

    def _deliver(self, origin: dict | None, task_id: str, cid: str, result: dict, lang: str) -> None:
        if not origin or not origin.get("channel") or result["status"] == "cancelled":
            return
        error = result["error"]  # detect_lang answers "en" or "zh": both sentences are kept
        response = result["response"] or AgentResponse(
            conversation_id=cid, answer=error[lang], error={"code": error["code"], "message": error[lang]},
        ).model_dump(mode="json")
        if not self.keys.hand_over(task_id, response):  # the webhook stopped waiting: push it
            push_answer(self.settings, origin["channel"], AgentResponse.model_validate(response), lang)

    def _last_assistant(self, cid: str) -> int | None:
        messages = self.store.conversations.messages(cid)
        return next((m.id for m in reversed(messages) if m.role == "assistant"), None)
