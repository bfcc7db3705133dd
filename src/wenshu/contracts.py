"""Request/response contracts shared by every channel (CLI, HTTP, chat-bot, MCP)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class AgentRequest(BaseModel):
    message: str
    conversation_id: str | None = None
    user_id: str = "local"
    datasource: str | None = None
    plan: dict | None = None  # a query plan to run as it is (the web UI's chips): no model call


class TraceStep(BaseModel):
    node: str
    status: Literal["ok", "retry", "error", "skipped", "cached"] = "ok"
    ms: float = 0.0
    detail: str = ""
    checks: list[str] = Field(default_factory=list)  # ids of the accuracy checks that fired (agent/checks.py)


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_ms: float = 0.0


class ErrorInfo(BaseModel):
    code: str
    message: str


class AgentResponse(BaseModel):
    conversation_id: str
    answer: str = ""
    sql: str | None = None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    chart: dict | None = None
    plan: dict | None = None  # {plan, chips, notes} when the semantic model's plan answered
    cached: bool = False
    intent: str | None = None
    query_type: str | None = None
    trace: list[TraceStep] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    error: ErrorInfo | None = None
    message_id: int | None = None  # the stored assistant message, when the answer was stored


class Event(BaseModel):
    """One streamed event: node started/finished, a model token, a reasoning model's thinking, tool progress."""

    type: Literal["node", "token", "thinking", "progress", "sql", "result", "answer", "error"]
    node: str | None = None
    status: str | None = None
    ms: float | None = None
    data: Any = None
