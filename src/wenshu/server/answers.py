"""Starting an answer for a user: checks shared by /api/ask, the event stream and tasks.

Any channel router (the OpenAI-compatible endpoint, chat-bot webhooks) can use `start_answer` too,
so ownership, grants and the one-answer-per-conversation rule hold everywhere.
"""

from __future__ import annotations

import asyncio

from wenshu.contracts import AgentRequest, AgentResponse, ErrorInfo
from wenshu.errors import ConversationBusy, EmptyQuestion, NotFound, RunCancelled
from wenshu.i18n import detect_lang
from wenshu.server.deps import Principal, ServerState, require_datasource
from wenshu.server.runner import Answer, Run, Sink
from wenshu.storage.conversations import ConversationRecord


def conversation_not_found(cid: str) -> NotFound:
    return NotFound(f"There is no conversation '{cid}'.", f"会话「{cid}」不存在。", code="conversation_not_found")


def owned_conversation(state: ServerState, user: Principal, cid: str) -> ConversationRecord:
    """The user's conversation; another user's id answers exactly like an unknown one (404)."""
    rec = state.store.conversations.get(cid, user_id=user.user_id)
    if rec is None:
        raise conversation_not_found(cid)
    return rec


def prepare_request(state: ServerState, user: Principal, message: str, conversation_id: str | None = None,
                    datasource: str | None = None, *, create_missing: bool = True,
                    plan: dict | None = None) -> AgentRequest:
    """Validate and resolve the conversation (creating it when asked to): the request to answer. A conversation
    a queued task is answering in (any process's) is busy."""
    question = (message or "").strip()
    if not question:
        raise EmptyQuestion()
    conv = state.store.conversations
    rec = None
    if conversation_id:
        rec = conv.get(conversation_id, user_id=user.user_id)
        if rec is None and (not create_missing or conv.get(conversation_id) is not None):
            raise conversation_not_found(conversation_id)
    name = datasource or (rec.datasource if rec else None) or state.settings.default_datasource
    require_datasource(state.store, user, name)
    if rec is not None and (state.runner.active_for(rec.id) or (state.queue is not None and state.queue.busy(rec.id))):
        raise ConversationBusy()
    cid = rec.id if rec else conv.create(user.user_id, name, conversation_id=conversation_id)
    return AgentRequest(message=question, conversation_id=cid, user_id=user.user_id, datasource=name, plan=plan)


def start_answer(
    state: ServerState,
    user: Principal,
    message: str,
    conversation_id: str | None = None,
    datasource: str | None = None,
    *,
    create_missing: bool = True,
    sink: Sink | None = None,
    plan: dict | None = None,
    answer: Answer | None = None,
) -> Run:
    """Validate, resolve the conversation and queue the answer in this process (by the data pipeline, or by
    `answer`: the general assistant's)."""
    request = prepare_request(state, user, message, conversation_id, datasource, create_missing=create_missing,
                              plan=plan)
    return state.runner.submit(request, user.user_id, sink=sink, answer=answer)


def submit_task(state: ServerState, user: Principal, message: str, conversation_id: str | None = None,
                datasource: str | None = None, *, plan: dict | None = None,
                origin: dict | None = None) -> tuple[str, str]:
    """A question for the task queue's workers (team deployment: state.queue); (task id, conversation id)."""
    request = prepare_request(state, user, message, conversation_id, datasource, plan=plan)
    return state.queue.submit(request, origin=origin), request.conversation_id


async def answer_and_wait(state: ServerState, user: Principal, message: str, conversation_id: str | None = None,
                          datasource: str | None = None, plan: dict | None = None) -> AgentResponse:
    """Run one answer to the end without blocking the event loop; errors raised before it ran propagate."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future = loop.create_future()

    def sink(kind: str, _item) -> None:
        if kind == "end":
            try:
                loop.call_soon_threadsafe(lambda: finished.done() or finished.set_result(None))
            except RuntimeError:  # the loop is gone: nobody is waiting any more
                pass

    run = start_answer(state, user, message, conversation_id, datasource, sink=sink, plan=plan)
    try:
        await finished
    finally:
        if not run.finished:  # the request itself was cancelled
            state.runner.cancel(run)
    if run.error is not None:
        raise run.error
    if run.response is None:  # stopped before it answered
        err = RunCancelled()
        return AgentResponse(conversation_id=run.conversation_id, message_id=run.message_id,
                             error=ErrorInfo(**err.to_dict(detect_lang(message))))
    return run.response
