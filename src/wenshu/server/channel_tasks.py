"""A chat channel's question in a team deployment (a task queue and a channel with a `push_url`).

The question goes to the task queue like `POST /api/tasks`; the webhook waits up to `channel_reply_wait_s`
(chat platforms want their reply within a few seconds) and replies with the answer when a worker finished in
time. Otherwise it replies that the answer will follow (`answer_pending`), and the worker posts the answer to
the channel's push_url once it has it. Which of the two delivers is settled once, in Redis (queue/keys.py):
an answer is never lost between them and never sent twice.
"""

from __future__ import annotations

import asyncio

from starlette.concurrency import run_in_threadpool

from wenshu.channels.base import Channel, IncomingMessage
from wenshu.contracts import AgentResponse
from wenshu.i18n import detect_lang
from wenshu.queue.errors import AnswerPending
from wenshu.server.answers import submit_task
from wenshu.server.deps import Principal, ServerState

POLL_S = 0.1


def pushes(state: ServerState, channel: Channel) -> bool:
    """Whether the channel's questions go to the queue (else they are answered in this process, as before)."""
    return state.queue is not None and bool(channel.push_url)


async def queued_answer(state: ServerState, user: Principal, channel: Channel, message: IncomingMessage,
                        conversation_id: str) -> AgentResponse:
    """The answer, if a worker gives it within the wait; else the reply saying it will be pushed."""
    task_id, cid = await run_in_threadpool(submit_task, state, user, message.text, conversation_id,
                                           channel.datasource, origin={"channel": channel.name})
    loop = asyncio.get_running_loop()
    deadline = loop.time() + state.settings.channel_reply_wait_s
    while loop.time() < deadline:
        found = await run_in_threadpool(state.queue.delivered, task_id)
        if found is not None:
            return AgentResponse.model_validate(found)
        await asyncio.sleep(POLL_S)
    found = await run_in_threadpool(state.queue.leave_to_push, task_id)
    if found is not None:  # the worker finished just as the wait ended
        return AgentResponse.model_validate(found)
    return AgentResponse(conversation_id=cid, answer=AnswerPending(task_id).message(detect_lang(message.text)))
