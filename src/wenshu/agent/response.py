"""Turn a finished graph state into the channel-neutral AgentResponse."""

from __future__ import annotations

from wenshu.contracts import AgentResponse, ErrorInfo, TraceStep, Usage
from wenshu.providers.base import UsageMeter


def usage_of(meter: UsageMeter) -> Usage:
    return Usage(llm_calls=meter.llm_calls, prompt_tokens=meter.prompt_tokens,
                 completion_tokens=meter.completion_tokens, model_ms=round(meter.seconds * 1000, 1))


def build_response(conversation_id: str, state: dict, usage: UsageMeter) -> AgentResponse:
    query, sql, result, meta = (state.get(k) or {} for k in ("query", "sql", "result", "meta"))
    ok = meta.get("status") == "ok"
    error = meta.get("error")
    return AgentResponse(
        conversation_id=conversation_id,
        answer=meta.get("answer", ""),
        sql=sql.get("sql") if ok else (sql.get("sql") or None),
        columns=result.get("columns", []) if ok else [],
        rows=result.get("rows", []) if ok else [],
        row_count=result.get("row_count", 0) if ok else 0,
        truncated=bool(result.get("truncated")) if ok else False,
        chart=meta.get("chart") if ok else None,
        plan=meta.get("plan") if ok else None,
        cached=bool(result.get("cached")) if ok else False,
        intent=query.get("intent"),
        query_type=query.get("query_type"),
        trace=[TraceStep(**t) for t in state.get("trace") or []],
        usage=usage_of(usage),
        error=ErrorInfo(**error) if error else None,
    )
