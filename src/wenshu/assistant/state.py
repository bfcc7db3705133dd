"""The assistant graph's state (what each node writes) and its channel-neutral response."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from pydantic import BaseModel, Field

from wenshu.contracts import AgentResponse, ErrorInfo, Usage


class AssistantState(TypedDict, total=False):
    request: str
    lang: str
    route: str  # direct | data | wide | agent (assistant/route.py, assistant/wide.py)
    steps: Annotated[list[dict], operator.add]  # [{action, arguments, result, ok}] in order
    decision: dict | None  # the last step the model chose: {action, arguments, answer} or {invalid: reason}
    repairs: int  # invalid steps sent back so far
    answer: str
    status: str  # ok | fallback | error
    data: dict | None  # the pipeline's AgentResponse when the data route answered
    trace: Annotated[list[dict], operator.add]  # the decide steps' timings (written by agent.nodes.instrument)


class AssistantStep(BaseModel):
    action: str
    arguments: dict = Field(default_factory=dict)
    result: str = ""
    ok: bool = True
    ms: float = 0.0


class SubAnswer(BaseModel):
    """One answer of the data pipeline behind the assistant's answer: a `query_database` call, or one
    sub-question of a question too wide for one query (assistant/wide.py), with its SQL and table."""

    question: str
    response: AgentResponse


class Citation(BaseModel):
    """A passage of a knowledge-base document behind the answer, attached by the host (never written by the model)."""

    document: str  # the file name
    document_id: str
    chunk_id: str = ""  # GET /api/kb/chunks/{chunk_id} reads the passage again
    section: str = ""  # the heading path, "A > B"
    page: int | None = None
    passage: str = ""


class AssistantResponse(BaseModel):
    conversation_id: str = ""  # where the turn is stored (the data route: the pipeline's own turn)
    message_id: int | None = None  # the stored answer
    answer: str = ""
    route: str = ""
    route_reason: str = ""  # the rule that chose the route (assistant/route.py), e.g. "documents", "skill", "data"
    status: str = "ok"
    steps: list[AssistantStep] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)  # offered to the model this turn
    skills: list[str] = Field(default_factory=list)  # selected by the host this turn
    data: AgentResponse | None = None
    citations: list[Citation] = Field(default_factory=list)  # documents behind the answer (search_documents)
    parts: list[SubAnswer] = Field(default_factory=list)  # the data pipeline's answers behind it, each with its SQL
    usage: Usage = Field(default_factory=Usage)
    error: ErrorInfo | None = None
    warnings: list[ErrorInfo] = Field(default_factory=list)  # e.g. an MCP server left out (mcp_unavailable)
