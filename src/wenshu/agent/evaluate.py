"""Evaluate: does the result answer the question? Deterministic checks, optionally a model judge."""

from __future__ import annotations

import re

from pydantic import BaseModel
from sqlglot import exp

from wenshu.agent.coverage import parse
from wenshu.agent.prompts import render


class Verdict(BaseModel):
    ok: bool
    feedback: str = ""


_NUMBER_IN_TOP = re.compile(r"top\s*(\d+)|前\s*(\d+)", re.I)
_COUNTING = re.compile(r"多少|几[个笔单位家种]|总|平均|合计|how many|number of|count|total|sum|average|mean", re.I)
_AGG = re.compile(r"\b(count|sum|avg|min|max|group\s+by)\b", re.I)


def evaluate_rules(question: str, query_type: str, sql: str, columns: list[str], rows: list[list], row_count: int) -> Verdict:
    """Catch clear misses: empty results, a top-N without ordering, an aggregate with no aggregation."""
    if row_count == 0:
        return Verdict(
            ok=False,
            feedback="The query returned no rows. Check filters, literal values (use codes for status columns) "
            "and the date range; if the data truly has no rows, keep the query.",
        )
    low = sql.lower()
    if query_type == "top_n":
        if "order by" not in low:
            return Verdict(ok=False, feedback="The question asks for a ranking: add ORDER BY on the measure and a LIMIT.")
        m = _NUMBER_IN_TOP.search(question)
        n = int(next(g for g in m.groups() if g)) if m else None
        if n and row_count > n and "limit" not in low:
            return Verdict(ok=False, feedback=f"The question asks for the top {n}: add LIMIT {n}.")
    if query_type in ("aggregate", "share", "trend", "top_n", "compare") and not _AGG.search(sql):
        if row_count > 50:
            return Verdict(
                ok=False,
                feedback="The question asks for a summary, but the query returns raw rows: aggregate with GROUP BY.",
            )
    if query_type == "detail" and row_count == 1 and _only_aggregates(sql) and not _COUNTING.search(question):
        return Verdict(
            ok=False,
            feedback="The question asks to list the records themselves: select their columns (id, time, amount, ...) "
            "with the same filters instead of aggregating them.",
        )
    if all(r[i] is None for r in rows for i in range(len(columns))) and rows:
        return Verdict(ok=False, feedback="Every value in the result is NULL; check the joins and column names.")
    return Verdict(ok=True)


def plan_query_type(plan: dict) -> str:
    """The query type a compiled plan answers, from its shape rather than the question's words (a plan
    for "比前一周" is a comparison, not a top-N)."""
    if plan.get("records"):
        return "detail"
    for key, kind in (("compare", "compare"), ("share", "share"), ("grain", "trend"), ("limit", "top_n")):
        if plan.get(key) not in (None, False, "none"):
            return kind
    return "aggregate"


def _only_aggregates(sql: str) -> bool:
    tree = parse(sql, "")
    return (isinstance(tree, exp.Select) and not tree.args.get("group")
            and all(p.find(exp.AggFunc) for p in tree.expressions))  # fmt: skip


def judge_prompt(question: str, sql: str, columns: list[str], rows: list[list]) -> str:
    return render("evaluate", question=question, sql=sql, columns=", ".join(columns), rows=rows[:5])
