"""Request and response bodies of the HTTP API (the OpenAPI schema is generated from these)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from wenshu.contracts import AgentResponse
from wenshu.storage.schema import ID_LEN


class AskBody(BaseModel):
    """A question; the user comes from the token, never from the body."""

    message: str
    conversation_id: str | None = Field(
        None, min_length=1, max_length=ID_LEN,
        description=f"One of your conversations, or a new id of your choice (at most {ID_LEN} characters).")
    datasource: str | None = None
    plan: dict | None = Field(None, description="A query plan to run as it is, with no model call (the answer's "
                              "chips carry these plans).")


class MessageBody(BaseModel):
    message: str
    datasource: str | None = None
    plan: dict | None = Field(None, description="A query plan to run as it is, with no model call.")


class AssistantBody(BaseModel):
    """A request to the general assistant (docs/assistant.md)."""

    message: str
    datasource: str | None = None
    workspace: str | None = Field(None, description="A folder the assistant may list, read, write and run allowed "
                                  "commands in: one of GET /api/workspaces (the server's workspace_roots), for an "
                                  "administrator only. Without it the workspace tools are not offered.")


class SemanticBody(BaseModel):
    yaml: str = Field(description="The semantic model as YAML (docs/semantic.md).")


class SemanticOut(BaseModel):
    datasource: str
    version: int
    source: str
    yaml: str
    measures: list[str]
    dimensions: list[str]


class ConversationCreate(BaseModel):
    datasource: str | None = None
    title: str | None = None


class ConversationPatch(BaseModel):
    title: str


class FeedbackBody(BaseModel):
    verdict: str = Field(description="up or down, on the conversation's latest answer")


class FeedbackOut(BaseModel):
    conversation_id: str
    verdict: str
    rejected_examples: list[int] = Field(default_factory=list)


class ConversationOut(BaseModel):
    id: str
    title: str | None
    datasource: str | None
    created_at: datetime
    updated_at: datetime


class ConversationList(BaseModel):
    items: list[ConversationOut]


class MessageOut(BaseModel):
    id: int
    role: str
    content: str
    sql: str | None
    status: str
    created_at: datetime
    payload: Any = None


class ConversationDetail(ConversationOut):
    messages: list[MessageOut]


class Deleted(BaseModel):
    deleted: bool = True


class Stopped(BaseModel):
    stopped: bool


class TaskCreated(BaseModel):
    task_id: str
    conversation_id: str


class TaskOut(BaseModel):
    task_id: str
    status: str
    progress: list[str]
    conversation_id: str
    result: AgentResponse | None = None
    error: dict | None = None
    worker: str | None = Field(None, description="Team deployment: the worker process that took it (host.pid).")
    lost: int | None = Field(None, description="Team deployment: how often a worker answering it died.")


class DatasourceCreate(BaseModel):
    name: str
    url: str


class DatasourceOut(BaseModel):
    name: str
    dialect: str
    tables: int | None = None
    synced_at: str | None = None


class DatasourceList(BaseModel):
    items: list[DatasourceOut]


class Meta(BaseModel):
    version: str
    datasources: list[str]
    default_datasource: str | None
    user: str
    auth_required: bool
    languages: list[str] = ["zh", "en"]
