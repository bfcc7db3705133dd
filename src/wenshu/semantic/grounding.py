"""Keep only what a question grounds: a model-filled plan answers only when its measures are named.

A small model fills the plan's fields from lists; this pure check keeps it honest against the words
the question actually uses, taken from the semantic model itself (names and synonyms of every entry,
labels of coded dimensions), never from a list written here:
- at least one measure must be named by the question (by a name or synonym), else the plan path
  does not answer and free SQL does;
- measures and dimensions the question does not name are dropped (a dimension a filter uses stays);
- filter values the question does not contain are dropped, and so is a filter left with none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan


@dataclass
class Grounded:
    plan: QueryPlan | None  # None: the question does not map onto the model
    reason: str = ""
    dropped: list[str] = field(default_factory=list)


def _named(words: list[str], question: str) -> bool:
    q = question.casefold()
    return any(w and w.casefold() in q for w in words)


def ground(plan: QueryPlan, model: SemanticModel, question: str) -> Grounded:
    entries = {e.id: e for e in model.entries()}
    dropped: list[str] = []
    measures = [m for m in plan.measures if m in entries and _named(entries[m].words(), question)]
    dropped += [f"measure {m}" for m in plan.measures if m not in measures]
    if not measures:
        return Grounded(None, "the question names none of the measures the plan chose: "
                        + ", ".join(plan.measures), dropped)
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
    order_by = plan.order_by if plan.order_by in measures else None
    update = {"measures": measures, "dimensions": dims, "filters": filters, "order_by": order_by}
    return Grounded(plan.model_copy(update=update), "", dropped)
