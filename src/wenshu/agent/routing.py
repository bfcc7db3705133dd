"""Pure routing functions: given the state, which node runs next."""

from __future__ import annotations

from wenshu.agent.state import AgentState


def after_intent(state: AgentState) -> str:
    return "recall" if state["query"].get("intent") == "data" else "respond"


def after_recall(state: AgentState) -> str:
    """A question nothing in the datasource is about gets its answer at once (agent/scope.py)."""
    return "nodata" if (state.get("schema") or {}).get("off_topic") else "plan"


def after_plan(state: AgentState) -> str:
    """A compiled plan goes straight to validation; otherwise the model writes SQL."""
    return "validate" if (state.get("sql") or {}).get("path") == "plan" else "generate"


def after_validate(state: AgentState, *, max_retries: int) -> str:
    part = state["sql"]
    if part.get("sql") and (part.get("validation") or {}).get("passed"):
        return "execute"
    return "generate" if part.get("retries", 0) < max_retries else "fallback"


def after_execute(state: AgentState, *, max_retries: int) -> str:
    if state["result"].get("error") is None:
        return "evaluate"
    return "generate" if state["sql"].get("retries", 0) < max_retries else "fallback"


def after_evaluate(state: AgentState, *, max_rounds: int) -> str:
    verdict = state["result"].get("verdict") or {}
    if verdict.get("ok") or state["sql"].get("eval_rounds", 0) >= max_rounds:
        return "explain"
    return "generate"
