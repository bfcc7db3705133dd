"""Routes: the lookup a dimension is reached through when the question says which ("customers who live in
first-tier cities", 家住新一线城市的客户, "sales by customer city": the customers' own city, not the orders'
delivery city).

Joins take the shortest lookup path (`semantic.paths`), so where two relationships lead into one table the
shorter wins: the demo's orders reach `cities` through their delivery city. A relationship may carry `words`,
what says a dimension is reached through it (customers.city_id: 家住, 所在城市, "live in"); a member named right
before a kind its table looks up ("customer city", 客户的城市) says it too. A plan's `via` lists such
relationships by their `from` column; compiled (`routed`), every other relationship into the same table is left
out, so the joins go that way (orders → customers → cities) and what lies beyond follows (that city's region).
The words are the question's, never the plan model's.
"""

from __future__ import annotations

import re

from wenshu.semantic.model import Relationship, SemanticModel
from wenshu.semantic.paths import path


def _alternative(model: SemanticModel, rel: Relationship) -> bool:
    """Whether another relationship leads into the same table (the route is a choice at all)."""
    into = rel.ends()[1][0].lower()
    return any(r is not rel and r.ends()[1][0].lower() == into for r in model.relationships)


def said_routes(model: SemanticModel, question: str) -> list[str]:
    """The relationships (`from` columns) whose words the question says."""
    q = question.casefold()
    return [r.from_ for r in model.relationships if _alternative(model, r)
            and any(re.search(rf"(?<![a-z]){re.escape(w.casefold())}(?![a-z])", q) for w in r.words)]


def owner_route(model: SemanticModel, owner_table: str, follower_table: str) -> str | None:
    """"customer city": the relationship the owner's table takes first toward the kind named after it, when the
    route is a choice."""
    hops = path(model, owner_table, follower_table)
    if not hops:
        return None
    table, column = hops[0].on[0], hops[0].on[1]
    rel = next((r for r in model.relationships if r.from_.lower() == f"{table}.{column}".lower()), None)
    return rel.from_ if rel is not None and _alternative(model, rel) else None


def routed(model: SemanticModel, via: list[str]) -> SemanticModel:
    """The model with only the `via` relationships leading into each of their tables."""
    chosen = [r for r in model.relationships if r.from_ in via]
    into = {r.ends()[1][0].lower() for r in chosen}
    kept = [r for r in model.relationships if r in chosen or r.ends()[1][0].lower() not in into]
    return model.model_copy(update={"relationships": kept}) if chosen else model


def reached(model: SemanticModel, via: list[str], dims: list[str]) -> list[str]:
    """The routes that lead to the table of one of `dims` (a plan's splits and filters) or to a table it is reached
    through (a region: through its city)."""
    tables, out = {d.table.lower() for d in model.dimensions if d.id in dims}, []
    for r in model.relationships:
        if r.from_ in via:
            target = r.ends()[1][0].lower()
            if any(t == target or target in _through(model, t) for t in tables):
                out.append(r.from_)
    return out


def _through(model: SemanticModel, table: str) -> set[str]:
    """The tables that look `table` up (cities for regions), transitively."""
    seen, todo = set(), [table]
    while todo:
        t = todo.pop()
        for r in model.relationships:
            (ta, _), (tb, _) = r.ends()
            if tb.lower() == t and ta.lower() not in seen:
                seen.add(ta.lower())
                todo.append(ta.lower())
    return seen
