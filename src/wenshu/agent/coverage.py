"""Does the SQL use what the question pins down? Deterministic checks run by the evaluate step.

Small models often drop a filter the question names (a 一线城市 question answered for all cities)
or take a date window from an example instead of the question. Two facts are known before any
model call, so they can be checked exactly:

- value hints whose value or label is written in the question (e.g. 一线 -> cities.city_tier = 1):
  the SQL must reference that column;
- relative time phrases (`wenshu.knowledge.time_phrases`): the SQL must use the resolved window's
  date modifiers (e.g. 'weekday 0' and '-13 days' for 上周).

A miss becomes feedback for one more generation round, naming the exact filter to add.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from wenshu.knowledge.time_phrases import TimeWindow

_QUOTED = re.compile(r"'([^']*)'")


def _norm(text: str) -> str:
    """Lower case, no spaces, plural units singular ('-1 months' == '-1 month')."""
    return re.sub(r"(day|month|year|hour|minute|second)s\b", r"\1", text.lower()).replace(" ", "")


def _columns(sql: str, dialect: str) -> set[str] | None:
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except Exception:  # noqa: BLE001 - unparseable SQL is the validator's business, not ours
        return None
    return {c.name.lower() for c in tree.find_all(exp.Column)}


def missing_values(question: str, sql: str, values: list[dict], dialect: str) -> list[dict]:
    """Value hints written in the question whose column the SQL never references."""
    used = _columns(sql, dialect)
    if used is None:
        return []
    low = question.lower()
    out = []
    for v in values:
        said = [str(x) for x in (v.get("label"), v.get("value")) if x not in (None, "")]
        if any(len(s) >= 2 and s.lower() in low for s in said) and str(v["column"]).lower() not in used:
            out.append(v)
    return out


def missing_windows(sql: str, windows: list[TimeWindow]) -> list[TimeWindow]:
    """Time windows whose start modifiers do not all appear in the SQL."""
    text = _norm(sql)
    out = []
    for w in windows:
        modifiers = [m for m in _QUOTED.findall(w.start) if m != "now" and "%" not in m]
        if modifiers and not all(_norm(f"'{m}'") in text for m in modifiers):
            out.append(w)
    return out


def coverage_feedback(question: str, sql: str, values: list[dict], windows: list[TimeWindow], dialect: str) -> str:
    """'' when the SQL covers the question's pinned values and time windows, else what to fix."""
    parts = []
    for v in missing_values(question, sql, values, dialect):
        literal = v["value"] if str(v["value"]).lstrip("-").isdigit() else f"'{v['value']}'"
        name = v.get("label") or v["value"]
        parts.append(f"The question mentions {name}: filter with {v['table']}.{v['column']} = {literal}.")
    for w in missing_windows(sql, windows):
        parts.append(f"The question says {w.phrase}: filter the date column with {w.condition()}.")
    return " ".join(parts)
