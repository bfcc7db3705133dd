"""Layer 2 column policy: a denied column may appear nowhere (select list, WHERE, JOIN, ORDER BY,
function arguments, USING); `SELECT *` / `t.*` over a table with denied columns is rewritten to the
allowed columns, or refused when the columns behind the star cannot be known.

Resolution is deliberately conservative: an unqualified column is treated as denied when any table
it could come from denies that name.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from wenshu.catalog import Catalog
from wenshu.guard.names import find_source, find_table, is_named_table, output_names, scope_chain
from wenshu.guard.outcome import Problem
from wenshu.guard.policy import GuardPolicy


def _denied(table: str, column: str) -> Problem:
    return Problem(
        "sql_column_denied", f"Column `{table}.{column}` may not be read (access policy), not even in a "
        "filter, join, sort or function.",
        f"Column `{column}` of table `{table}` is off limits by policy; answer without it.",
    )  # fmt: skip


def _star_problem(why: str) -> Problem:
    return Problem(
        "sql_star_not_expandable", f"`SELECT *` covers a table with columns denied by policy, and {why}.",
        "List the columns you need by name instead of using *.",
    )  # fmt: skip


def _table_sources(scope: Scope):
    """(alias, Table) for every base table visible from `scope` (its own and enclosing scopes)."""
    for s in scope_chain(scope):
        for alias, source in s.sources.items():
            if isinstance(source, exp.Table) and is_named_table(source):
                yield alias, source


def _column_problem(col: exp.Column, scope: Scope, policy: GuardPolicy) -> Problem | None:
    name = col.name.lower()
    if col.table:
        source = find_source(scope, col.table)
        if isinstance(source, exp.Table) and name in policy.denied_columns(source.name):
            return _denied(source.name, col.name)
        return None
    for alias, table in _table_sources(scope):
        hidden = policy.denied_columns(table.name)
        if name in hidden:
            return _denied(table.name, col.name)
        if hidden and name == alias.lower():  # PostgreSQL whole-row reference: row_to_json(c)
            return _denied(table.name, "*")
    return None


def _columns_of(source, alias: str, scope: Scope, policy, catalog, dialect) -> list[str] | Problem:
    if isinstance(source, Scope):
        names = output_names(source)
        return sorted(names) if names is not None else _star_problem(f"the columns of `{alias}` are unknown")
    if not isinstance(source, exp.Table) or catalog is None:
        return _star_problem("no catalog is available to list the allowed columns")
    info = find_table(catalog, source, dialect)
    if info is None or not info.columns:
        return _star_problem(f"the columns of `{source.name}` are unknown")
    hidden = policy.denied_columns(source.name)
    return [c.name for c in info.columns if c.name.lower() not in hidden]


def _expand(select: exp.Select, scope: Scope, policy, catalog, dialect) -> Problem | None:
    projections = []
    for proj in select.expressions:
        star_of = None
        if isinstance(proj, exp.Star):
            star_of = list(scope.selected_sources)
        elif isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star):
            star_of = [proj.table]
        if star_of is None:
            projections.append(proj)
            continue
        sources = {a: s for a, (_, s) in scope.selected_sources.items()}
        covered = [a for a in star_of if isinstance(sources.get(a), exp.Table)
                   and policy.denied_columns(sources[a].name)]  # fmt: skip
        if not covered:
            projections.append(proj)
            continue
        if any(j.args.get("using") or j.args.get("method") for j in select.args.get("joins") or []):
            return _star_problem("the joins use USING or NATURAL")
        for alias in star_of:
            cols = _columns_of(sources.get(alias), alias, scope, policy, catalog, dialect)
            if isinstance(cols, Problem):
                return cols
            projections += [exp.column(c, table=alias, quoted=True) for c in cols]
    select.set("expressions", projections)
    return None


def apply_column_policy(tree: exp.Expression, policy: GuardPolicy, catalog: Catalog | None,
                        dialect: str) -> tuple[bool, Problem | None]:
    """(rewritten, problem): expand stars in place, then refuse any denied column reference."""
    if not policy.deny_columns:
        return False, None
    try:
        scopes = list(traverse_scope(tree))
    except Exception:  # noqa: BLE001 - unanalysable statement: refuse rather than guess
        return False, _star_problem("the statement's column references could not be analysed")
    before = tree.sql()
    for scope in scopes:  # innermost first, so a derived table's outputs are final when read
        if isinstance(scope.expression, exp.Select):
            problem = _expand(scope.expression, scope, policy, catalog, dialect)
            if problem:
                return False, problem
    rewritten = tree.sql() != before
    by_expression = {id(s.expression): s for s in scopes}
    for node in tree.walk():
        if isinstance(node, exp.Join):
            problem = _join_problem(node, policy)
        elif isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            problem = _column_problem(node, _scope_of(node, by_expression), policy) if node.name else None
        elif isinstance(node, exp.Column):
            problem = _star_arg_problem(node, _scope_of(node, by_expression), policy)
        else:
            problem = None
        if problem:
            return rewritten, problem
    return rewritten, None


def _scope_of(node: exp.Expression, by_expression: dict) -> Scope | None:
    parent = node.parent
    while parent is not None and id(parent) not in by_expression:
        parent = parent.parent
    return by_expression.get(id(parent)) if parent is not None else None


def _star_arg_problem(col: exp.Column, scope: Scope | None, policy: GuardPolicy) -> Problem | None:
    """`t.*` left after expansion (inside a function call) over a table with denied columns."""
    source = find_source(scope, col.table) if scope is not None else None
    if isinstance(source, exp.Table) and policy.denied_columns(source.name):
        return _denied(source.name, "*")
    return None


def _join_problem(join: exp.Join, policy: GuardPolicy) -> Problem | None:
    table = join.this if isinstance(join.this, exp.Table) else None
    for ident in join.args.get("using") or []:
        name = ident.name.lower()
        for t in join.parent.find_all(exp.Table) if join.parent else []:
            if name in policy.denied_columns(t.name):
                return _denied(t.name, ident.name)
    if join.args.get("method") and table is not None and policy.denied_columns(table.name):
        return _denied(table.name, "* (NATURAL JOIN)")
    return None
