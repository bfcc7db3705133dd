"""The condition that keeps members by whether they have rows of a measure (`QueryPlan.presence`).

A list's rows are members by their table's own key (customers listed). A measure counts members: a count of a
table's rows counts the rows themselves (customers registered), a distinct count of a column that looks another table
up counts that table's rows (the customers with a paid order). A presence
keeps the members that have (or have no) rows of another count measure's table, under that measure's own filter and
in the presence's window, that point at them through lookups: "这个季度还一单没下" is `NOT EXISTS (a paid order of this
quarter whose customer_id is the member's)`. The inner tables have their own aliases, so the outer table can be one of
them (last quarter's buyers who did not buy this quarter). [NOT] EXISTS, not [NOT] IN: engines plan it as a semi or
anti join (Spark plans NOT IN as a nested loop over both tables), and a NULL key never empties it; an engine without
correlated subqueries (ClickHouse) gets IN over the rows' keys, NULL keys left out."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from wenshu.semantic.compiled import literal
from wenshu.semantic.model import Measure, SemanticModel
from wenshu.semantic.paths import Unreachable, joins, own_key, path
from wenshu.semantic.plan import Presence


def member(model: SemanticModel, m: Measure) -> tuple[str, str, str] | None:
    """(table, column) of `m`'s rows that names the member it counts, and the member's own table; None when `m`
    counts no member (a sum, an average)."""
    if m.agg == "count" and not m.expr and not m.at_least:
        return record_member(model, m.table)
    if m.agg != "count_distinct" or not m.expr or not re.fullmatch(r"\w+", m.expr):
        return None
    for r in model.relationships:
        (ta, ca), (tb, _) = r.ends()
        if r.cardinality == "many_to_one" and ta.lower() == m.table.lower() and ca.lower() == m.expr.lower():
            return m.table, m.expr, tb
    return (m.table, m.expr, m.table) if own_key(model, m.table) == m.expr else None


def record_member(model: SemanticModel, table: str) -> tuple[str, str, str] | None:
    """A list of a table's rows lists members: each row is one, by the table's own key (customers.customer_id)."""
    key = own_key(model, table)
    return (table, key, table) if key else None


def presence_condition(writer, counted: tuple[str, str, str] | None, p: Presence, what: str) -> str:
    """The rows whose member (`counted`: `member` or `record_member`) has (or has no) rows of `p.measure` in its
    period; raises PlanNotCompilable when there is no member (`what` names the measure or list) or no way to it."""
    rows = writer.measures.get(p.measure)
    if counted is None or rows is None:
        raise writer.fail(f"{what} cannot be kept to members with or without rows of {p.measure}",
                          f"{what} 不能按有没有 {p.measure} 的记录筛选成员")
    table, column, owner = counted
    if owner.lower() == rows.table.lower():  # the rows themselves (orders with no paid orders): a state, not members
        raise writer.fail(f"the rows of {p.measure} are the members of {what} themselves",
                          f"{p.measure} 的记录就是 {what} 的成员本身")
    try:
        route = path(writer.model, rows.table, owner)
    except Unreachable as exc:
        raise writer.fail(f"the rows of {p.measure} do not point at the members of {what}",
                          f"{p.measure} 的记录与 {what} 的成员之间没有关联") from exc
    if route:
        ref_table, ref_column = route[-1].on[0], route[-1].on[1]  # the column that looks the member up
    else:
        ref_table, ref_column = rows.table, own_key(writer.model, rows.table) or column
    used = {rows.table, ref_table}
    where = []
    if rows.filter:
        where.append(f"({writer.qualify(rows.filter, rows.table, used)})")
    dims = {d.id: d for d in writer.model.dimensions}
    for f in (f for f in p.filters if f.dimension in dims):  # 西北: where the rows were, not the members
        d = dims[f.dimension]
        used.add(d.table)
        values = ", ".join(literal(v) for v in f.values)
        where.append(f"{writer.q(d.table)}.{writer.q(d.column)} {'NOT IN' if f.op == 'not_in' else 'IN'} ({values})")
    if (window := p.period(writer.plan.window)) is not None:
        t = writer.time_column(rows, used)
        where.append(f"{t} >= {literal(window.start.isoformat())} AND {t} < {literal(window.end.isoformat())}")
    source = f"FROM {writer.q(rows.table)} AS {writer.q(_ALIAS + rows.table)}"
    for h in joins(writer.model, rows.table, used - {rows.table}):
        lt, lc, rt, rc = h.on
        source += (f" JOIN {writer.q(h.table)} AS {writer.q(_ALIAS + h.table)}"
                   f" ON {_inner(writer, lt, lc)} = {_inner(writer, rt, rc)}")
    key, outer, conds = _inner(writer, ref_table, ref_column), writer.col(table, column), [*map(_aliased(writer), where)]
    if writer.engine.correlated_subqueries:
        return f"{'' if p.has else 'NOT '}EXISTS (SELECT 1 {source} WHERE {' AND '.join([f'{key} = {outer}', *conds])})"
    return f"{outer} {'' if p.has else 'NOT '}IN (SELECT {key} {source} WHERE {' AND '.join([f'{key} IS NOT NULL', *conds])})"


_ALIAS = "h_"  # the inner tables' aliases: the outer table may be one of them (last quarter's buyers, this quarter's orders)


def _inner(writer, table: str, column: str) -> str:
    return writer.col(_ALIAS + table, column)


def _aliased(writer):
    """A condition written on the tables' names, on the inner aliases instead."""
    def rename(node):
        if isinstance(node, exp.Column) and node.table:
            return exp.Column(this=node.this, table=exp.to_identifier(_ALIAS + node.table, quoted=True))
        return node
    return lambda sql: sqlglot.parse_one(sql, read=writer.dialect).transform(rename).sql(dialect=writer.dialect)
