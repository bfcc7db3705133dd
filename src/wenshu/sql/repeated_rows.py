"""Rows a join only repeats: list each once, average or add each once.

A small model answers "the arrival dates of the dogs that went through a treatment" with
`Dogs JOIN Treatments`, which lists a dog once per treatment, and "the average age of those dogs" with
`AVG(Dogs.age)` over the same join, which weighs each dog by its number of treatments. When no column
of a joined table is selected and that table is joined on a column that is not its whole primary key,
each selected row repeats once per matching row of it: the question asks which rows qualify.

- A list of plain columns (no aggregate, no GROUP BY, no ORDER BY) becomes `SELECT DISTINCT`.
- An average or a total of one table's columns over one such join becomes that table filtered by
  `key IN (SELECT … FROM joined WHERE its own conditions)`, so each row counts once.

What leaves a query alone: an outer join, a join with no ON, a derived table, `*`, a subquery in the
select list, a column whose table is not known, a compound query (UNION, INTERSECT and EXCEPT already
list rows once), an ORDER BY (a ranking may mean each match, and PostgreSQL refuses DISTINCT with an
ORDER BY on a column it does not select), a count (how many dogs, or how many treatments, is the
question's to say), and joins that can only look one row up (on the joined table's key).
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.sql.query_tables import column_table as _owner
from wenshu.sql.query_tables import one_statement
from wenshu.sql.query_tables import source_tables as _sources
from wenshu.sql.repair import Repair


def _selected_tables(select: exp.Select, sources: dict[str, str], catalog: Catalog) -> set[str] | None:
    read: set[str] = set()
    for e in select.expressions:
        if e.find(exp.Window, exp.Star, exp.Subquery):
            return None
        for col in e.find_all(exp.Column):
            owner = _owner(col, sources, catalog)
            if owner is None:
                return None
            read.add(owner.lower())
    return read or None


def _repeating(join: exp.Join, sources: dict[str, str], read: set[str], catalog: Catalog) -> exp.Column | None:
    """The joined table's column of an inner join to a table nothing is selected from, when that column
    is not the table's whole key (so the join repeats rows); None otherwise."""
    on = join.args.get("on")
    if join.side or (join.kind or "").upper() not in ("", "INNER") or on is None:
        return None
    for col in (c for eq in on.find_all(exp.EQ) for c in (eq.left, eq.right) if isinstance(c, exp.Column)):
        owner = _owner(col, sources, catalog)
        info = catalog.table(owner) if owner else None
        if info is not None and owner.lower() not in read and [k.lower() for k in info.primary_key] != [col.name.lower()]:
            return col
    return None


def _as_semi_join(select: exp.Select, sources: dict[str, str], read: set[str], catalog: Catalog) -> exp.Select | None:
    """`AGG(p.x) FROM p JOIN c ON p.k = c.f WHERE …` as `AGG(p.x) FROM p WHERE p.k IN (SELECT c.f FROM c
    WHERE c's conditions) AND p's conditions`, for AVG and SUM over one join; None when it does not fit."""
    joins = select.args["joins"]
    if len(joins) != 1 or len(read) != 1 or not all(isinstance(e.unalias(), (exp.Avg, exp.Sum)) for e in select.expressions):
        return None
    on, child = joins[0].args.get("on"), _repeating(joins[0], sources, read, catalog)
    if child is None or not isinstance(on, exp.EQ) or not all(isinstance(c, exp.Column) for c in (on.left, on.right)):
        return None
    parent = on.right if on.left is child else on.left
    kept, inner = [], []
    where = select.args.get("where")
    for cond in (where.this.flatten() if where and isinstance(where.this, exp.And) else [where.this] if where else []):
        owners = {(_owner(c, sources, catalog) or "").lower() for c in cond.find_all(exp.Column)}
        if owners <= read:
            kept.append(cond)
        elif owners == {_owner(child, sources, catalog).lower()}:
            inner.append(cond)
        else:
            return None
    sub = exp.select(child.copy()).from_(joins[0].this.copy())
    for cond in inner:
        sub = sub.where(cond.copy())
    out = exp.select(*(e.copy() for e in select.expressions)).from_(select.args["from_"].this.copy())
    out = out.where(exp.In(this=parent.copy(), query=exp.Subquery(this=sub)))
    for cond in kept:
        out = out.where(cond.copy())
    if select.args.get("limit"):
        out.set("limit", select.args["limit"].copy())
    return out


def once_per_row(sql: str, catalog: Catalog, dialect: str) -> Repair:
    """`sql` with the rows a join only repeats listed or aggregated once (see the module's docstring)."""
    select = one_statement(sql, dialect)
    if not isinstance(select, exp.Select):
        return Repair(sql)
    if any(select.args.get(k) for k in ("distinct", "group", "having", "order")) or not select.args.get("joins"):
        return Repair(sql)
    sources = _sources(select)
    read = _selected_tables(select, sources, catalog) if sources else None
    if read is None:
        return Repair(sql)
    if any(e.find(exp.AggFunc) for e in select.expressions):
        semi = _as_semi_join(select, sources, read, catalog)
        if semi is None:
            return Repair(sql)
        note = f"{semi.args['where'].find(exp.In).this.sql()} IN (…): the join repeats each row once per match"
        return Repair(semi.sql(dialect=dialect or None, pretty=True), [note])
    col = next((c for j in select.args["joins"] if (c := _repeating(j, sources, read, catalog)) is not None), None)
    if col is None:
        return Repair(sql)
    select.set("distinct", exp.Distinct())
    note = f"SELECT DISTINCT: the join on {col.sql()} repeats each row once per match"
    return Repair(select.sql(dialect=dialect or None, pretty=True), [note])
