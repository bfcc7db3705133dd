"""The audit entry of an assistant turn that the data pipeline did not answer itself.

A turn on the agent, wide or direct route gets one entry in the audit log, under the user who asked: the
request, the route, each tool it called in order with its arguments (each text cut to ARGUMENT_CHARS) and
its outcome (`ok`, or `error` with the refusal or failure in one line), how the turn ended (`ok`,
`fallback`, `error`, `stopped`) and how long it took. A result that came back is not kept (the rows a query
returned are not audited either). The pipeline audits its own answers: a data-route turn, and each
`query_database` call or sub-question as an entry of its own (agent.turns.AuditHook).
"""

from __future__ import annotations

import time

from wenshu.assistant.stream import summary

ARGUMENT_CHARS = 200


def shortened(value):
    """An argument as the audit keeps it: a long text cut, a nested object or list cut inside."""
    if isinstance(value, str):
        return value if len(value) <= ARGUMENT_CHARS else value[: ARGUMENT_CHARS - 1] + "…"
    if isinstance(value, dict):
        return {k: shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shortened(v) for v in value]
    return value


def tool_entry(step: dict) -> dict:
    """One tool call of the turn ({action, arguments, result, ok, ms}) as the audit keeps it."""
    out = {"tool": step["action"], "arguments": shortened(step.get("arguments") or {}),
           "outcome": "ok" if step.get("ok", True) else "error", "ms": step.get("ms")}
    if not step.get("ok", True):
        out["detail"] = summary(step.get("result", ""))
    return out


def audit_turn(log, *, user_id: str, conversation_id: str, datasource: str, question: str, route: str,
               route_reason: str = "", steps: list[dict], status: str, error=None, route_ms: float | None = None,
               started: float) -> int:
    """Write the turn's entry into `log` (storage.audit.AuditLog); `error`: its ErrorInfo, if any."""
    timings = {"route": route_ms} if route_ms is not None else {}
    return log.record(
        user_id=user_id, conversation_id=conversation_id, datasource=datasource, question=question, route=route,
        route_reason=route_reason or None, tools=[tool_entry(s) for s in steps], status=status,
        error_code=error.code if error else None, error_message=error.message if error else None,
        timings=timings | {"total": round((time.perf_counter() - started) * 1000, 1)})  # fmt: skip
