"""What scopes the rows of a presence when the members a list shows cannot take it: "上周三西北大区有哪些品类一件都没卖出去"
lists categories, which have no region and no dates; 西北 and that Wednesday are where and when the order lines were
not sold. "Which cities got no paid orders through the app last week" likewise: the channel and the week are the
orders'.

`scoped` takes the values a question names on dimensions the rows reach but the members do not, out of the rest of
the question (with the dimension's own name said right after a value: 西北大区) into each presence's filters; `dated`
gives a presence without a period of its own the window of a list whose records have no time column."""

from __future__ import annotations

import re
from dataclasses import replace

from wenshu.semantic.mentions import read
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.plan import Filter, QueryPlan


def scoped(model: SemanticModel, said, members: list[str], hits: list[dict] | None = None):
    """`said` (a `presence.Said`) with the values only its rows can be filtered by moved into its presences."""
    if not said.presence or not members:
        return said
    reach, dims = reachable(model), {d.id: d for d in model.dimensions}
    rows = next(x.table.lower() for x in model.measures if x.id == said.presence[0].measure)
    m, rest, moved = read(model, said.rest, hits), said.rest, []
    valued = {dims[d].table.lower() for d in m.values}  # 西北大区: a region named by its value is no member listed
    theirs = {t for o in members if o not in valued or len(members) == 1 for t in {o, *reach.get(o, set())}}
    for did, codes in m.values.items():
        d = dims[did]
        if d.kind == "time" or d.table.lower() in theirs or d.table.lower() not in {rows, *reach.get(rows, set())}:
            continue
        moved.append(Filter(dimension=did, op="not_in" if did in m.excluded else "in", values=codes))
        rest = _blanked(rest, d, codes, hits)
    if not moved:
        return said
    return replace(said, rest=rest, presence=[p.model_copy(update={"filters": [*p.filters, *moved]}) for p in said.presence])


def _blanked(text: str, d, codes: list, hits: list[dict] | None) -> str:
    """`text` without the words of `codes` (labels, aliases, the stored values the value index found), each with the
    dimension's own name when it follows (西北大区)."""
    words = [w for c in codes for w in (str(c), d.labels.get(str(c)), d.labels_en.get(str(c)), *d.aliases.get(str(c), []))
             if w] + [str(h.get("label") or h["value"]) for h in hits or []
                      if (h.get("table"), h.get("column")) == (d.table, d.column) and "value" in h]
    names = "|".join(re.escape(w) for w in sorted(d.words(), key=len, reverse=True) if w)
    for w in sorted(set(words), key=len, reverse=True):
        text = re.sub(re.escape(w) + (rf"\s*(?:{names})?" if names else ""), lambda x: " " * len(x.group(0)), text,
                      flags=re.I)
    return text


def dated(model: SemanticModel, plan: QueryPlan) -> QueryPlan:
    """A list of records with no time column of their own (categories) takes no window: it is its presences'."""
    record = next((r for r in model.records if r.id == plan.records), None)
    if record is None or record.time or plan.window is None or not plan.presence:
        return plan
    return plan.model_copy(update={"window": None, "presence": [
        p if p.window is not None or p.before else p.model_copy(update={"window": plan.window}) for p in plan.presence]})
