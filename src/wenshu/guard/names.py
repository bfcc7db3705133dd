"""Layer 2 names: every table and column the statement reads must exist in the catalog.

Names are resolved through aliases, CTEs, derived tables and correlated subqueries, with each
engine's case rules (`wenshu.guard.dialects.name_matches`); a refusal names the closest real
tables or columns and, for a column that lives elsewhere, the join that reaches it.

The checks are deliberately conservative: a column is reported only when every source it could
come from is a catalog table whose columns are known, so a valid query is never refused. Output
aliases, CTE and derived-table columns, table functions, lambdas and system tables are left alone.
"""

from __future__ import annotations

import difflib

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.catalog.joins import where_column_lives
from wenshu.guard.dialects import name_matches, rules
from wenshu.guard.outcome import Problem
from wenshu.guard.system import is_system_table



NameProblem = Problem  # code: sql_unknown_table | sql_unknown_column


def find_table(catalog: Catalog, table: exp.Table, dialect: str) -> TableInfo | None:
    """The catalog table a Table node names, under the dialect's case rules."""
    info = catalog.table(table.name)
    if info is None or not isinstance(table.this, exp.Identifier):
        return info
    return info if name_matches(table.name, info.name, quoted=table.this.quoted, dialect=dialect) else None


def find_column(info: TableInfo, col: exp.Column, dialect: str) -> ColumnInfo | None:
    found = info.column(col.name)
    quoted = isinstance(col.this, exp.Identifier) and col.this.quoted
    if found is None or name_matches(col.name, found.name, quoted=quoted, dialect=dialect):
        return found
    return None


def closest(name: str, candidates: list[str], n: int = 5) -> list[str]:
    """Candidates that look like `name` (difflib ratio, then substring relations), best first."""
    by_low: dict[str, str] = {}
    for c in candidates:
        by_low.setdefault(c.lower(), c)
    low = name.lower()
    hits = difflib.get_close_matches(low, list(by_low), n=n, cutoff=0.6)
    if len(low) >= 3:
        for cand in by_low:
            if len(hits) >= n:
                break
            if cand not in hits and (low in cand or cand in low):
                hits.append(cand)
    return [by_low[h] for h in hits]


def _fmt(names: list[str], limit: int = 15) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def is_named_table(node: exp.Expression) -> bool:
    return isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier)


def unknown_table(tree: exp.Expression, catalog: Catalog, dialect: str) -> NameProblem | None:
    cte_names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not is_named_table(table):
            continue  # table function such as json_each(...) or generate_series(...)
        name = table.name
        if (not table.db and name.lower() in cte_names) or find_table(catalog, table, dialect):
            continue
        if is_system_table(table, dialect):
            continue
        real = catalog.table_names()
        near = closest(name, real)
        ds = f" in datasource `{catalog.datasource}`" if catalog.datasource else ""
        reason = f"Table `{table.sql(dialect=dialect)}` does not exist{ds}."
        if near:
            reason += f" Closest tables: {', '.join(near)}."
            hint = f"Table `{name}` does not exist. Use one of: {', '.join(near)}."
        elif real:
            hint = f"Table `{name}` does not exist. The available tables are: {_fmt(real)}."
        else:
            hint = f"Table `{name}` does not exist and the datasource has no tables."
        return NameProblem("sql_unknown_table", reason, hint)
    return None


def output_names(scope: Scope) -> set[str] | None:
    """Names a derived table / CTE exposes, or None when they cannot be known (stars, unnamed)."""
    expr = scope.expression
    if not isinstance(expr, (exp.Select, exp.SetOperation)):
        return None
    names = set()
    for proj in expr.selects:
        if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column) and proj.is_star):
            return None
        if not proj.alias_or_name:
            return None
        names.add(proj.alias_or_name.lower())
    return names


def scope_chain(scope: Scope):
    while scope is not None:
        yield scope
        scope = scope.parent


def find_source(scope: Scope, qualifier: str):
    low = qualifier.lower()
    for s in scope_chain(scope):
        for key, source in s.sources.items():
            if key.lower() == low:
                return source
    return None


def _visible(scope: Scope, catalog: Catalog, dialect: str):
    """Catalog tables an unqualified column may come from, names exposed by derived tables, and
    whether some source is opaque (its columns unknown)."""
    tables: list[TableInfo] = []
    derived: set[str] = set()
    opaque = False
    chain = list(scope_chain(scope))
    for s in chain:
        for source in s.sources.values():
            if isinstance(source, Scope) and any(source is c for c in chain):
                continue  # a CTE or derived table does not see its own output columns
            if isinstance(source, Scope):
                names = output_names(source)
                opaque = opaque or names is None
                derived |= names or set()
            elif is_named_table(source) and find_table(catalog, source, dialect) and not is_system_table(source, dialect):
                tables.append(find_table(catalog, source, dialect))
            else:
                opaque = True
    return tables, derived, opaque


def unknown_column(tree: exp.Expression, catalog: Catalog, dialect: str) -> NameProblem | None:
    if tree.find(exp.Pivot):
        return None
    aliases = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
    for ta in tree.find_all(exp.TableAlias):
        aliases |= {c.name.lower() for c in ta.columns}
    engine = rules(dialect)
    implicit = engine.hidden_columns  # columns every row has undeclared (SQLite rowid, PostgreSQL ctid)
    try:
        scopes = list(traverse_scope(tree))
    except Exception:  # noqa: BLE001 - scope analysis is best effort; never refuse on our failure
        return None
    by_expression = {id(s.expression): s for s in scopes}
    for col in tree.find_all(exp.Column):
        if isinstance(col.this, exp.Star) or col.find_ancestor(exp.Lambda, exp.Hint):
            continue
        # Check each column against the innermost scope that contains it (and, through
        # `scope_chain`, the scopes a correlated reference may reach).
        node = col.parent
        while node is not None and id(node) not in by_expression:
            node = node.parent
        scope = by_expression.get(id(node))
        name, low = col.name, col.name.lower()
        if scope is None or not name or low in implicit:
            continue
        if col.table:
            problem = _check_qualified(col, scope, catalog, dialect)
        elif low in aliases or (engine.quoted_names_are_strings and col.this.quoted):
            continue  # an output alias, or SQLite reading an unknown "double-quoted" name as a string
        else:
            problem = _check_unqualified(col, scope, catalog, dialect)
        if problem:
            return problem
    return None


def _check_qualified(col: exp.Column, scope: Scope, catalog: Catalog, dialect: str) -> NameProblem | None:
    source = find_source(scope, col.table)
    if source is None or not is_named_table(source) or is_system_table(source, dialect):
        return None  # struct field access, derived table or something we cannot see into
    table = find_table(catalog, source, dialect)
    if table is None or not table.columns or find_column(table, col, dialect):
        return None
    real = [c.name for c in table.columns]
    near = closest(col.name, real)
    shown = col.sql(dialect=dialect)
    reason = f"Column `{shown}` does not exist: table `{table.name}` has no column `{col.name}`."
    use = f"Use one of: {', '.join(near)}." if near else f"Its columns are: {_fmt(real, 30)}."
    if near:
        reason += f" Closest columns: {', '.join(near)}."
    hint = f"Column `{col.name}` does not exist in table `{table.name}`. {use}"
    hint += where_column_lives(catalog, col.name, [table.name])
    return NameProblem("sql_unknown_column", reason, hint)


def _check_unqualified(col: exp.Column, scope: Scope, catalog: Catalog, dialect: str) -> NameProblem | None:
    tables, derived, opaque = _visible(scope, catalog, dialect)
    low = col.name.lower()
    if opaque or not (tables or derived) or low in derived or any(find_column(t, col, dialect) for t in tables):
        return None
    if any(not t.columns for t in tables):
        return None
    seen: list[str] = []
    for t in tables:
        if t.name not in seen:
            seen.append(t.name)
    qualified = [f"{t.name}.{c.name}" for t in tables for c in t.columns] + sorted(derived)
    near_names = closest(col.name, [c.name for t in tables for c in t.columns] + sorted(derived))
    near = [q for q in qualified if q.split(".", 1)[-1] in near_names]
    places = [f"table `{n}`" for n in seen] + (["the subquery/CTE outputs"] if derived else [])
    where = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " or " + places[-1]
    reason = f"Column `{col.name}` does not exist in {where}."
    if near:
        reason += f" Closest columns: {', '.join(near)}."
        hint = f"Column `{col.name}` does not exist in {where}. Use one of: {', '.join(near)}."
    else:
        hint = f"Column `{col.name}` does not exist in {where}. The available columns are: {_fmt(qualified, 30)}."
    hint += where_column_lives(catalog, col.name, seen)
    return NameProblem("sql_unknown_column", reason, hint)
