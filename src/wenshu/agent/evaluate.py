"""Evaluate: the verdict on an answer that ran. The deterministic checks live in `agent/checks.py`;
this module holds the verdict, the query type a plan answers and the model judge's prompt."""

from __future__ import annotations

from pydantic import BaseModel

from wenshu.prompts import render


class Verdict(BaseModel):
    ok: bool
    feedback: str = ""
    checks: list[str] = []  # ids of the accuracy checks that fired (agent/checks.py)


def plan_query_type(plan: dict) -> str:
    """The query type a compiled plan answers, from its shape rather than the question's words (a plan
    for "比前一周" is a comparison, not a top-N)."""
    if plan.get("records"):
        return "detail"
    for key, kind in (("compare", "compare"), ("share", "share"), ("grain", "trend"), ("limit", "top_n")):
        if plan.get(key) not in (None, False, "none"):
            return kind
    return "aggregate"


def judge_prompt(question: str, sql: str, columns: list[str], rows: list[list]) -> str:
    return render("evaluate", question=question, sql=sql, columns=", ".join(columns), rows=rows[:5])
