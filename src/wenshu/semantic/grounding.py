"""Keep only what a question grounds: a model-filled plan answers only when its measures are named.

A small model fills the plan's fields from lists; this pure check keeps it honest against the words
the question actually uses. Measures, dimensions and values are checked against the semantic model's
own words (names and synonyms of every entry, labels of coded dimensions):
- the measures are those the question names (the longest name wins: 商品销售额 over 销售额): a measure
  the model chose that the question does not name is dropped, one it names that the model missed is
  added; with none named, the plan path does not answer and free SQL does;
- dimensions the question does not name are dropped (a dimension a filter uses stays);
- filter values the question does not contain are dropped, and so is a filter left with none.
The operators — a trend's grain, 同比/环比, 占比, top N — are kept only when the question asks for them
in words of the language itself (`CUES`: Chinese and English operator words, not anything about a
particular database); a small model otherwise adds them unasked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan


@dataclass
class Grounded:
    plan: QueryPlan | None  # None: the question does not map onto the model
    reason: str = ""
    dropped: list[str] = field(default_factory=list)


CUES = {
    "grain": r"每[天日周月年]|每个?(星期|季度|月)|按(天|日|周|月|季度?|年)|逐[日月年]|各(月|季度|年)|趋势|走势|变化"
             r"|daily|weekly|monthly|quarterly|yearly|annual|trend|over time|per (day|week|month|quarter|year)"
             r"|by (day|week|month|quarter|year)|each (day|week|month|quarter|year)",
    "yoy": r"同比|去年同期|上年同期|year[- ]over[- ]year|\byoy\b|same period last year",
    "previous": r"环比|上期|上一期|比上|较上|相比上|previous period|period over period|month[- ]over[- ]month|\bmom\b",
    "share": r"占比|份额|比重|构成|占.{0,6}(比例|百分比)|share|percentage of|proportion",
    "rank": r"前\s*[0-9一二两三四五六七八九十]+|[0-9]+\s*(名|个|大)|top\s*[0-9]+|bottom\s*[0-9]+|最(高|低|多|少|大|小|好|差)"
            r"|排名|排行|highest|lowest|most|least|top|bottom|rank",
}


def _cue(kind: str, question: str) -> bool:
    return re.search(CUES[kind], question, re.I) is not None


def _named(words: list[str], question: str) -> bool:
    q = question.casefold()
    return any(w and w.casefold() in q for w in words)


def _measures_named(model: SemanticModel, question: str) -> list[str]:
    """Measures and ratios the question names, by their longest word; one word inside another
    named one (销售额 inside 商品销售额) does not count on its own."""
    q = question.casefold()
    best = {}
    for e in [*model.measures, *model.ratios]:
        hits = [w.casefold() for w in e.words() if w and w.casefold() in q]
        if hits:
            best[e.id] = max(hits, key=len)
    return [i for i, w in best.items() if not any(w != o and w in o for o in best.values())]


def ground(plan: QueryPlan, model: SemanticModel, question: str) -> Grounded:
    entries = {e.id: e for e in model.entries()}
    dropped: list[str] = []
    named = _measures_named(model, question)
    chosen = [m for m in plan.measures if m in named]
    measures = (chosen + [n for n in named if n not in chosen])[:3]  # what the model missed, the question names
    dropped += [f"measure {m}" for m in plan.measures if m not in measures]
    if not measures:
        return Grounded(None, "the question names none of the semantic model's measures (the plan chose "
                        + ", ".join(plan.measures) + ")", dropped)
    filters = []
    for f in plan.filters:
        dim = entries.get(f.dimension)
        labels = getattr(dim, "labels", {}) or {}
        values = [v for v in f.values if str(v).casefold() in question.casefold()
                  or (str(v) in labels and labels[str(v)].casefold() in question.casefold())]
        if values:
            filters.append(f.model_copy(update={"values": values}))
        else:
            dropped.append(f"filter {f.dimension}")
    kept_dims = {f.dimension for f in filters}
    dims = [d for d in plan.dimensions if d in entries and (_named(entries[d].words(), question) or d in kept_dims)]
    dropped += [f"dimension {d}" for d in plan.dimensions if d not in dims]
    update = {"measures": measures, "dimensions": dims, "filters": filters,
              "order_by": plan.order_by if plan.order_by in measures else None}
    for kind, key, off in (("grain", "grain", None), ("share", "share", False)):
        if getattr(plan, key) not in (None, False) and not _cue(kind, question):
            update[key] = off
            dropped.append(key)
    if plan.compare != "none" and not _cue(plan.compare, question):
        update["compare"] = "none"
        dropped.append(f"compare {plan.compare}")
    if (plan.limit or plan.order) and not _cue("rank", question):
        update.update(limit=None, order=None, order_by=None)
        dropped.append("top N")
    return Grounded(plan.model_copy(update=update), "", dropped)
