"""The graph state, split into parts; each node writes only its own part.

`turns` is conversation memory: it survives across invocations through the checkpointer. `trace` is
reset at the start of each turn (the runner passes `None`).
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

MAX_TURNS = 10


class QueryPart(TypedDict, total=False):
    question: str
    lang: str
    today: str
    datasource: str
    intent: str
    query_type: str
    followup: bool
    intent_source: str
    plan: dict | None  # a query plan given with the request (the UI's chips): compiled with no model call


class SchemaPart(TypedDict, total=False):
    dialect: str
    block: str
    tables: list[str]
    examples: list[dict]
    tokens: int
    values: list[dict]
    glossary: list[dict]
    whole: bool  # the whole schema: the system prompt is the same for every question (prefix cache)
    off_topic: dict  # {words, closest}: nothing in the datasource is about the question (agent/scope.py)


class SQLPart(TypedDict, total=False):
    sql: str | None
    path: str  # "plan" when the semantic model's compiler wrote the SQL, "sql" when the model did
    plan: dict  # the query plan that answered (semantic.plan.QueryPlan)
    plan_notes: list[dict]  # ambiguous measure words, a finer measure used for a split (agent.plan_answer)
    attempts: list[dict]  # [{sql, stage, reason}]
    attempted: bool  # an SQL was produced this turn (generate or plan); the next generate is a retry
    raw: str  # the model's text the SQL was extracted from (first 2,000 characters)
    repairs: list[str]  # what sql.repair fixed in code before the guard
    kept: dict  # {sql, result, path, plan, plan_notes}: the last answer that ran, for the graceful fallback
    vote: str  # how the self-consistency vote chose (sql_candidates > 1)
    validation: dict | None
    retries: int  # regenerations after a validation or execution failure
    eval_rounds: int  # regenerations after an unsatisfied evaluation


class ResultPart(TypedDict, total=False):
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    cached: bool
    error: str | None
    verdict: dict | None


class MetaPart(TypedDict, total=False):
    answer: str
    chart: dict | None
    plan: dict | None  # {plan, chips, notes} when the plan path answered
    status: str  # ok | chitchat | fallback | error
    error: dict | None


def add_turns(old: list | None, new: list | None) -> list:
    return ((old or []) + (new or []))[-MAX_TURNS:]


def add_trace(old: list | None, new: list | None) -> list:
    return [] if new is None else (old or []) + new


class AgentState(TypedDict, total=False):
    query: QueryPart
    schema: SchemaPart
    sql: SQLPart
    result: ResultPart
    meta: MetaPart
    turns: Annotated[list[dict], add_turns]
    trace: Annotated[list[dict], add_trace]
