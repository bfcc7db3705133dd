"""Does a follow-up keep the conditions of the answer it builds on?

"再按城市拆分一下" after "上周华南大区的销售额" means: the same question, split by city, still for
华南 and still for last week. Small models often rewrite the query from scratch and drop the
earlier filters. The previous SQL is known, so this is checked exactly: every condition of its
WHERE clauses (split on AND) whose columns the new SQL never mentions is reported, as long as the
new SQL could still apply it (its table is one of the new query's tables or reachable from them by
key joins; a switch to an unrelated table, such as from orders to traffic, drops nothing).

When the new question names its own time window, date conditions of the previous answer are
replaced, not dropped, and are left out.
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.agent.coverage import parse, select_tables
from wenshu.catalog import Catalog
from wenshu.catalog.joins import join_steps


def _conditions(tree: exp.Expression) -> list[tuple[exp.Expression, set[str], set[str]]]:
    """(condition, its column names, its tables) for every AND-part of every WHERE."""
    out = []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is None:
            continue
        tables = select_tables(select)
        for part in where.this.flatten() if isinstance(where.this, exp.And) else [where.this]:
            if part.find(exp.Select):
                continue  # a subquery condition: too entangled to carry over by name
            cols = list(part.find_all(exp.Column))
            if not cols:
                continue
            owners = {tables.get(c.table.lower(), "") for c in cols if c.table}
            if not all(c.table for c in cols) and len(set(tables.values())) == 1:
                owners |= set(tables.values())
            part = part.copy()  # name tables, not this query's aliases, in the feedback
            for c in part.find_all(exp.Column):
                if c.table.lower() in tables:
                    c.set("table", exp.to_identifier(tables[c.table.lower()]))
            out.append((part, {c.name.lower() for c in cols}, {o for o in owners if o}))
    return out


def _is_date_condition(part: exp.Expression) -> bool:
    text = part.sql().lower()
    return any(w in text for w in ("date(", "'now'", "strftime", "current_date", "interval", "now()"))


def dropped_conditions(previous_sql: str, sql: str, catalog: Catalog | None, dialect: str,
                       new_window: bool = False) -> list[str]:
    """Conditions of `previous_sql` that `sql` silently drops, as SQL text."""
    before, after = parse(previous_sql, dialect), parse(sql, dialect)
    if before is None or after is None or catalog is None:
        return []
    used = {c.name.lower() for c in after.find_all(exp.Column)}
    now_tables = {t.name for t in after.find_all(exp.Table)}
    out: list[str] = []
    for part, names, owners in _conditions(before):
        if names & used or (new_window and _is_date_condition(part)):
            continue
        if not owners or not all(o in now_tables or join_steps(catalog, list(now_tables), o) for o in owners):
            continue
        text = part.sql(dialect=dialect or None)
        if text not in out:
            out.append(text)
    return out
