"""Join paths of a semantic model: from a measure's table to the tables it looks up (many-to-one), and
what the measures (or a list's rows) can be filtered by along them (`value_filters`).

A measure is only ever joined to tables its rows look up: following a relationship from its many side
to its one side (or across a one-to-one) keeps one row per measure row, so an aggregation over the
joined rows is the aggregation over the measure's own rows. A dimension on a table reached the other
way (orders → order_items) would repeat the measure's rows; `path` refuses it. Such a table can still
filter the measure's rows without joining them (`semi_join`: the orders that have an item of a
category), never split them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from wenshu.semantic.model import SemanticModel

if TYPE_CHECKING:  # a type only: mentions reads the model's paths itself
    from wenshu.semantic.mentions import Mentions


@dataclass(frozen=True)
class Hop:
    table: str  # the table joined in
    on: tuple[str, str, str, str]  # (left table, left column, right table, right column)


class Unreachable(Exception):
    def __init__(self, start: str, target: str):
        self.start, self.target = start, target
        super().__init__(f"{target} is not a lookup of {start}")


class Forest:
    """Union-find over tables: `joins(a, b)` is False when a and b were already connected (a cycle)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def root(self, t: str) -> str:
        t = t.lower()
        while self.parent.setdefault(t, t) != t:
            t = self.parent[t]
        return t

    def joins(self, a: str, b: str) -> bool:
        ra, rb = self.root(a), self.root(b)
        if ra == rb:
            return False
        self.parent[ra] = rb
        return True


def reachable(model: SemanticModel) -> dict[str, set[str]]:
    """Per table (lower case), every table it looks up, transitively."""
    edges = {t.lower(): {o.lower() for _, o, _ in hops} for t, hops in lookup_edges(model).items()}
    out: dict[str, set[str]] = {}
    for start in edges:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen and nxt != start:
                    seen.add(nxt)
                    todo.append(nxt)
        out[start] = seen
    return out


def lookup_edges(model: SemanticModel) -> dict[str, list[tuple[str, str, str]]]:
    """table -> [(its column, other table, other column)] along many-to-one (and one-to-one both ways)."""
    edges: dict[str, list[tuple[str, str, str]]] = {}
    for r in model.relationships:
        (ta, ca), (tb, cb) = r.ends()
        edges.setdefault(ta, []).append((ca, tb, cb))
        if r.cardinality == "one_to_one":
            edges.setdefault(tb, []).append((cb, ta, ca))
    return edges


def path(model: SemanticModel, start: str, target: str) -> list[Hop]:
    """The hops from `start` to `target` by lookups (breadth first: the shortest); [] when they are the same."""
    if start.lower() == target.lower():
        return []
    edges = lookup_edges(model)
    seen, frontier = {start.lower()}, [(start, [])]
    while frontier:
        nxt = []
        for table, hops in frontier:
            for col, other, other_col in edges.get(table, []):
                if other.lower() in seen:
                    continue
                route = [*hops, Hop(other, (table, col, other, other_col))]
                if other.lower() == target.lower():
                    return route
                seen.add(other.lower())
                nxt.append((other, route))
        frontier = nxt
    raise Unreachable(start, target)


def tied_paths(model: SemanticModel) -> list[tuple[str, str, list[Hop], list[Hop]]]:
    """(start, target, one path, another) for each pair of tables that two lookup paths of the same, shortest
    length join: a split there could mean either (two routes from orders to cities, say). A longer second
    route is no ambiguity: joins take the shortest (the orders' delivery city, not their customer's)."""
    edges, out = lookup_edges(model), []
    for start in list(edges):
        best: dict[str, list[Hop]] = {start.lower(): []}
        frontier = [(start, [])]
        while frontier:
            reached: dict[str, list[Hop]] = {}
            for table, hops in frontier:
                for col, other, other_col in edges.get(table, []):
                    route = [*hops, Hop(other, (table, col, other, other_col))]
                    if other.lower() in best:
                        continue
                    if other.lower() in reached and reached[other.lower()][-1].on != route[-1].on:
                        out.append((start, other, reached[other.lower()], route))
                    reached.setdefault(other.lower(), route)
            best |= reached
            frontier = [(r[-1].table, r) for r in reached.values()]
    return out


def joins(model: SemanticModel, start: str, targets: set[str]) -> list[Hop]:
    """The hops that bring every table of `targets` into a query over `start`, each table once, in order."""
    out: list[Hop] = []
    for target in sorted(targets):
        for hop in path(model, start, target):
            if hop.table not in {h.table for h in out}:
                out.append(hop)
    return out


@dataclass(frozen=True)
class SemiJoin:
    """Filter `start`'s rows by `target` through a table that looks `start` up: EXISTS, never a join."""

    child: str  # a table whose rows look up `start` (order_items for orders)
    on: tuple[str, str, str, str]  # (child, its column, start, start's column)
    hops: list[Hop]  # from the child to `target`


def semi_join(model: SemanticModel, start: str, target: str) -> SemiJoin:
    """The shortest way to filter `start` by `target` through one child table; raises Unreachable."""
    found = []
    for r in model.relationships:
        (ta, ca), (tb, cb) = r.ends()
        if tb.lower() == start.lower() and r.cardinality == "many_to_one":
            try:
                found.append(SemiJoin(ta, (ta, ca, tb, cb), path(model, ta, target)))
            except Unreachable:
                continue
    if not found:
        raise Unreachable(start, target)
    return min(found, key=lambda s: len(s.hops))


def own_key(model: SemanticModel, table: str) -> str | None:
    """The column other tables look `table`'s rows up by (orders.order_id): one value per row of it."""
    return next((cb for r in model.relationships for (_, _), (tb, cb) in [r.ends()]
                 if tb.lower() == table.lower() and r.cardinality in ("many_to_one", "one_to_one")), None)


def joins_through_children(model: SemanticModel, start: str, targets: set[str]) -> list[Hop]:
    """Like `joins`, but a table no lookup reaches is joined through a table that looks `start` up (orders
    to their items to the items' categories): for aggregates that repeated rows leave alone (a distinct count,
    a minimum, a maximum) only."""
    out: list[Hop] = []
    for target in sorted(targets):
        try:
            route = path(model, start, target)
        except Unreachable:
            s = semi_join(model, start, target)
            child, col, _, start_col = s.on
            route = [Hop(child, (start, start_col, child, col)), *s.hops]
        out += [h for h in route if h.table not in {x.table for x in out}]
    return out


def filterable(model: SemanticModel) -> dict[str, set[str]]:
    """Per table (lower case), every table that can filter its rows: its lookups, and through each table
    that looks it up, that table and its lookups."""
    lookups = reachable(model)
    out = {t: set(v) for t, v in lookups.items()}
    for r in model.relationships:
        (ta, _), (tb, _) = r.ends()
        if r.cardinality == "many_to_one":
            out.setdefault(tb.lower(), set()).update({ta.lower()} | lookups.get(ta.lower(), set()))
    return out


def value_filters(model: SemanticModel, m: Mentions, measures: list[str],
                  tables: set[str] | None = None) -> dict[str, list[str]]:
    """dimension id -> the values the question names, for the dimensions the measures (or the rows of
    `tables`) can be filtered by ("小程序" is a channel of the orders and of the traffic: one filter, on
    the one the measures reach)."""
    tables, reach_of, out = tables or measure_tables(model, measures), filterable(model), {}
    for did, values in m.values.items():
        d = next(x for x in model.dimensions if x.id == did)
        twins = {c.id for c in model.conformed(did)}
        if d.kind != "time" and reaches(model, did, tables, reach_of) and not twins & set(out):
            out[did] = values
    return out


def reaches(model: SemanticModel, did: str, tables: set[str], reach_of: dict[str, set[str]]) -> bool:
    """Whether every table of `tables` reaches `did` (or a dimension conforming to it)."""
    return all(any(c.table.lower() == t or c.table.lower() in reach_of.get(t, ()) for c in model.conformed(did))
               for t in tables)


def measure_tables(model: SemanticModel, ids: list[str]) -> set[str]:
    """The tables the measures (a ratio: both of its parts) are computed on, lower case."""
    measures = {x.id: x for x in model.measures}
    ratios = {r.id: (r.numerator, r.denominator) for r in model.ratios}
    return {measures[b].table.lower() for i in ids for b in ratios.get(i, (i,)) if b in measures}
