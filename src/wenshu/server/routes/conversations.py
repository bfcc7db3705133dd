"""Conversations: list (newest first), create, get with messages, rename, delete, and a verdict on the latest
answer (feedback: "down" rejects the example pair learned from that turn and, for a first answer, forgets the
answer cache's copy of it)."""

from __future__ import annotations

from fastapi import APIRouter, Query

from wenshu.server.answers import conversation_not_found, owned_conversation
from wenshu.server.deps import CurrentUser, StateDep, require_datasource
from wenshu.server.schemas import (
    ConversationCreate,
    ConversationDetail,
    ConversationList,
    ConversationOut,
    ConversationPatch,
    Deleted,
    FeedbackBody,
    FeedbackOut,
    MessageOut,
)

router = APIRouter(prefix="/api/conversations", tags=["conversations"])


def _out(rec) -> ConversationOut:
    return ConversationOut(id=rec.id, title=rec.title, datasource=rec.datasource, created_at=rec.created_at,
                           updated_at=rec.updated_at)


@router.get("", operation_id="conversations_list", response_model=ConversationList)
def list_conversations(state: StateDep, user: CurrentUser, limit: int = Query(50, ge=1, le=500)):
    return ConversationList(items=[_out(r) for r in state.store.conversations.list(user.user_id, limit=limit)])


@router.post("", operation_id="conversations_create", response_model=ConversationOut, status_code=201)
def create_conversation(body: ConversationCreate, state: StateDep, user: CurrentUser):
    name = body.datasource or state.settings.default_datasource
    require_datasource(state.store, user, name)
    cid = state.store.conversations.create(user.user_id, name, title=body.title)
    return _out(state.store.conversations.get(cid))


@router.get("/{conversation_id}", operation_id="conversations_get", response_model=ConversationDetail)
def get_conversation(conversation_id: str, state: StateDep, user: CurrentUser):
    rec = owned_conversation(state, user, conversation_id)
    messages = [MessageOut(id=m.id, role=m.role, content=m.content, sql=m.sql, status=m.status,
                           created_at=m.created_at, payload=m.payload)
                for m in state.store.conversations.messages(rec.id)]
    return ConversationDetail(**_out(rec).model_dump(), messages=messages)


@router.patch("/{conversation_id}", operation_id="conversations_rename", response_model=ConversationOut)
def rename_conversation(conversation_id: str, body: ConversationPatch, state: StateDep, user: CurrentUser):
    if not state.store.conversations.rename(conversation_id, body.title, user_id=user.user_id):
        raise conversation_not_found(conversation_id)
    return _out(state.store.conversations.get(conversation_id))


@router.delete("/{conversation_id}", operation_id="conversations_delete", response_model=Deleted)
def delete_conversation(conversation_id: str, state: StateDep, user: CurrentUser):
    owned_conversation(state, user, conversation_id)
    run = state.runner.active_for(conversation_id)
    if run is not None:
        state.runner.cancel(run)
        run.done_event.wait(10)  # its stopped turn is written before the rows go
    if not state.store.conversations.delete(conversation_id, user_id=user.user_id):
        raise conversation_not_found(conversation_id)
    return Deleted()


@router.post("/{conversation_id}/feedback", operation_id="conversations_feedback", response_model=FeedbackOut)
def feedback(conversation_id: str, body: FeedbackBody, state: StateDep, user: CurrentUser):
    """Thumbs up or down on the conversation's latest answer (another user's conversation answers 404)."""
    return FeedbackOut(**state.agent.feedback(conversation_id, body.verdict, user_id=user.user_id))
