"""The few Redis keys Wenshu keeps beside RQ's own for a queued question, shared by API and worker processes.

- `wenshu:conv-task:{conversation}`: the task answering in it, set by the API at submit (one answer per
  conversation, across processes), released when the task ends;
- `wenshu:task-cancel:{task}`: set by `DELETE /api/tasks/{id}`, read by the worker every `CANCEL_POLL_S`;
- `wenshu:task-delivery:{task}`: a channel's answer (JSON) or `push`, set by whichever of the worker and the
  waiting webhook comes first, read by the other one.

The delivery key hands a chat channel's answer over exactly once: the worker finishing first stores the answer
(the webhook, still waiting, replies with it); the webhook giving up first stores `push` (the worker then
pushes the answer to the channel's push_url). Both use SET NX, so exactly one of them wins.
"""

from __future__ import annotations

import json

import redis

PUSH = "push"
CANCEL_POLL_S = 0.25


class TaskKeys:
    def __init__(self, client: redis.Redis, keep_s: int):
        self.client = client
        self.keep_s = int(keep_s)

    # one answer per conversation
    def hold_conversation(self, conversation_id: str, task_id: str) -> bool:
        return bool(self.client.set(f"wenshu:conv-task:{conversation_id}", task_id, nx=True, ex=self.keep_s))

    def conversation_task(self, conversation_id: str) -> str | None:
        value = self.client.get(f"wenshu:conv-task:{conversation_id}")
        return value.decode() if value is not None else None

    def release_conversation(self, conversation_id: str, task_id: str) -> None:
        if self.conversation_task(conversation_id) == task_id:  # never another task's hold
            self.client.delete(f"wenshu:conv-task:{conversation_id}")

    # cancellation
    def request_cancel(self, task_id: str) -> None:
        self.client.set(f"wenshu:task-cancel:{task_id}", 1, ex=self.keep_s)

    def clear_cancel(self, task_id: str) -> None:
        """A task run again under the same id (a workspace task resumed) starts with no stop asked of it."""
        self.client.delete(f"wenshu:task-cancel:{task_id}")

    def cancel_requested(self, task_id: str) -> bool:
        return bool(self.client.exists(f"wenshu:task-cancel:{task_id}"))

    # a channel's answer, handed over once
    def hand_over(self, task_id: str, response: dict) -> bool:
        """The worker's side: True when the answer was left for the waiting webhook, False when it must push."""
        value = json.dumps(response, ensure_ascii=False)
        return bool(self.client.set(f"wenshu:task-delivery:{task_id}", value, nx=True, ex=self.keep_s))

    def handed_over(self, task_id: str) -> dict | None:
        """The webhook's side while it waits: the answer, once the worker left it."""
        value = self.client.get(f"wenshu:task-delivery:{task_id}")
        return json.loads(value) if value is not None and value != PUSH.encode() else None

    def leave_to_push(self, task_id: str) -> dict | None:
        """The webhook giving up: None when the worker will push; the answer when it had just left it."""
        if self.client.set(f"wenshu:task-delivery:{task_id}", PUSH, nx=True, ex=self.keep_s):
            return None
        return self.handed_over(task_id)
