"""SQL rewrites tried on stored answers by `python -m bench rewrite` (2026-12-05). `repeated_rows` is the
product's (`wenshu.sql.repeated_rows`); the others are trials that did not pay on Spider-DK and are kept
here, not in the product, so their figures in the README can be reproduced. Each takes (sql, catalog,
question, database path) and returns the new SQL or None."""

from __future__ import annotations

import re
import sqlite3

import sqlglot
from sqlglot import exp

from wenshu.catalog.joins import key_edges
from wenshu.sql.query_tables import column_table, source_tables
from wenshu.sql.repeated_rows import once_per_row
from wenshu.sql.unused_joins import _name_words, _question_words, drop_unused_joins


def _select(sql: str) -> exp.Select | None:
    tree = sqlglot.parse_one(sql, read="sqlite")
    return tree if isinstance(tree, exp.Select) else None


def repeated_rows(sql, catalog, question, db):
    fixed = once_per_row(sql, catalog, "sqlite")
    return fixed.sql if fixed.changed else None


def unused_join(sql, catalog, question, db):
    fixed = drop_unused_joins(sql, catalog, "sqlite", question)
    return fixed.sql if fixed.notes else None


def group_by_key(sql, catalog, question, db):
    """GROUP BY a column of a joined table that is almost unique (>= 80 % distinct): group by the table's key."""
    sel = _select(sql)
    group = sel.args.get("group") if sel else None
    if not group or not sel.args.get("joins") or len(group.expressions) != 1 or not isinstance(group.expressions[0], exp.Column):
        return None
    sources, col = source_tables(sel), group.expressions[0]
    owner = column_table(col, sources, catalog) if sources else None
    info = catalog.table(owner) if owner else None
    if info is None or len(info.primary_key) != 1 or info.primary_key[0].lower() == col.name.lower():
        return None
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        distinct, rows = conn.execute(f'SELECT COUNT(DISTINCT "{col.name}"), COUNT(*) FROM "{info.name}"').fetchone()
    if not rows or distinct >= rows or distinct / rows < 0.8:
        return None
    alias = next(a for a, t in sources.items() if t == owner)
    group.set("expressions", [exp.column(info.primary_key[0], table=alias), col.copy()])
    return sel.sql(dialect="sqlite")


def count_join(sql, catalog, question, db):
    """A count over one table grouped by its columns, where the question names one table with a key to it: join it."""
    sel = _select(sql)
    if sel is None or sel.args.get("joins") or not sel.args.get("group") or not isinstance(sel.args["from_"].this, exp.Table):
        return None
    if not any(sel.find_all(exp.Count)):
        return None
    table, said = catalog.table(sel.args["from_"].this.name), _question_words(question)
    if table is None:
        return None
    named = [(t, fk) for t in catalog.tables if t.name.lower() != table.name.lower()
             and (w := _name_words(t.name)) and w <= said and not w <= _name_words(table.name)
             for fk in [f for f in t.foreign_keys if f.ref_table.lower() == table.name.lower() and len(f.columns) == 1]]
    if len(named) != 1:
        return None
    other, fk = named[0]
    alias = sel.args["from_"].this.alias_or_name
    return sel.join(other.name, on=f"{other.name}.{fk.columns[0]} = {alias}.{fk.ref_columns[0]}").sql(dialect="sqlite")


def both_intersect(sql, catalog, question, db):
    """'both … and …' answered with UNION: INTERSECT."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    if not re.search(r"\bboth\b", question, re.I) or not isinstance(tree, exp.Union) or not tree.args.get("distinct", True):
        return None
    out = exp.Intersect(this=tree.this.copy(), expression=tree.expression.copy(), distinct=True)
    if tree.args.get("limit"):
        out.set("limit", tree.args["limit"].copy())
    return out.sql(dialect="sqlite")


def count_shown(sql, catalog, question, db):
    """'how many' / 'number of' / 多少 with a superlative ordered by COUNT that shows no count: show it."""
    sel = _select(sql)
    if sel is None or not re.search(r"how many|number of|多少|几", question, re.I) or not sel.args.get("order"):
        return None
    counts = [o.this for o in sel.args["order"].expressions if isinstance(o.this, exp.Count)]
    if not sel.args.get("group") or len(counts) != 1 or any(e.find(exp.AggFunc) for e in sel.expressions):
        return None
    sel.set("expressions", [*sel.expressions, counts[0].copy()])
    return sel.sql(dialect="sqlite")


def rekey_on(sql, catalog, question, db):
    """A JOIN whose ON never names the joined table, or compares a column with itself: the one key edge instead."""
    tree, edges, changed = sqlglot.parse_one(sql, read="sqlite"), key_edges(catalog), False
    for sel in tree.find_all(exp.Select):
        if not source_tables(sel):
            continue
        seen = [sel.args["from_"].this]
        for join in sel.args.get("joins") or []:
            on, me = join.args.get("on"), join.this.alias_or_name.lower()
            if isinstance(on, exp.EQ) and (on.left == on.right or not any(c.table.lower() == me for c in on.find_all(exp.Column))):
                found = [(t.alias_or_name, s) for t in seen if (i := catalog.table(t.name))
                         for s in edges.get(i.name, []) if s[2].lower() == join.this.name.lower()]
                if len(found) == 1:
                    alias, step = found[0]
                    join.set("on", sqlglot.parse_one(f"{alias}.{step[1]} = {join.this.alias_or_name}.{step[3]}"))
                    changed = True
            seen.append(join.this)
    return tree.sql(dialect="sqlite") if changed else None


RULES = {f.__name__: f for f in (repeated_rows, unused_join, group_by_key, count_join, both_intersect, count_shown, rekey_on)}
