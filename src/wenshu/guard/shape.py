"""Layer 3 static shape checks: cartesian products and unbounded recursive CTEs.

Cartesian product: within one SELECT, the relations in FROM/JOIN (comma joins, CROSS JOIN, JOIN
without ON) must be linked into one group by join conditions: ON/USING/NATURAL, or WHERE
predicates naming columns of two relations. A relation that is provably tiny (VALUES, a subquery
with LIMIT <= TINY_ROWS, an aggregate without GROUP BY, a table the catalog counts at most
TINY_ROWS rows in), lateral or a table function may stand apart.
Recursive CTEs: `wenshu.guard.recursion` (each step must end within a bounded number of rounds).
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.guard.limits import int_literal
from wenshu.guard.names import find_table
from wenshu.guard.outcome import Problem
from wenshu.guard.recursion import DEFAULT_MAX_DEPTH, recursion_problem

TINY_ROWS = 100


def _int(node) -> int | None:
    """The constant of a LIMIT clause (or expression), else None."""
    return int_literal(node.expression if isinstance(node, exp.Limit) else node)


def _tiny_query(q: exp.Expression) -> bool:
    if isinstance(q, exp.Subquery):
        q = q.this
    if isinstance(q, exp.Values):
        return len(q.expressions) <= TINY_ROWS
    if not isinstance(q, exp.Query):
        return False
    limit = _int(q.args.get("limit"))
    if limit is not None and 0 <= limit <= TINY_ROWS:
        return True
    if isinstance(q, exp.Select) and not q.args.get("group"):
        return any(p.find(exp.AggFunc) for p in q.expressions)
    return False


def _tiny_table(table: exp.Table, catalog: Catalog | None, dialect: str) -> bool:
    info = find_table(catalog, table, dialect) if catalog is not None else None
    return info is not None and info.row_count is not None and info.row_count <= TINY_ROWS


def _free(source: exp.Expression, ctes: dict[str, exp.Expression], catalog=None, dialect: str = "") -> bool:
    """Whether a relation cannot multiply rows on its own (tiny, lateral or a table function)."""
    if isinstance(source, (exp.Lateral, exp.Unnest, exp.Values)):
        return True
    if isinstance(source, exp.Subquery):
        return _tiny_query(source)
    if isinstance(source, exp.Table):
        if not isinstance(source.this, exp.Identifier):
            return True  # table function such as generate_series(...) or json_each(...)
        cte = ctes.get(source.name.lower()) if not source.db else None
        return _tiny_query(cte) if cte is not None else _tiny_table(source, catalog, dialect)
    return True  # anything unusual: do not guess


def _conjuncts(node: exp.Expression | None) -> list[exp.Expression]:
    if node is None:
        return []
    if isinstance(node, (exp.Where, exp.Paren)):
        return _conjuncts(node.this)
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


class _Groups:
    def __init__(self, names):
        self.parent = {n: n for n in names}

    def find(self, n):
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def link(self, names) -> None:
        names = [n for n in names if n in self.parent]
        for other in names[1:]:
            self.parent[self.find(other)] = self.find(names[0])


def _refs(pred: exp.Expression, select: exp.Select, aliases: list[str]) -> set[str]:
    """The relations of `select` a predicate may read (an unqualified column may read any)."""
    low = {a.lower(): a for a in aliases}
    found: set[str] = set()
    columns = 0
    for col in pred.find_all(exp.Column):
        if col.table:
            if col.table.lower() in low:
                found.add(low[col.table.lower()])
                columns += 1
        elif col.find_ancestor(exp.Select) is select or col.find_ancestor(exp.Select) is None:
            found |= set(aliases)
            columns += 1
    return found if columns >= 2 else set()


def cartesian_problem(select: exp.Select, ctes: dict, catalog: Catalog | None, dialect: str) -> Problem | None:
    from_ = select.args.get("from_")
    joins = select.args.get("joins") or []
    if from_ is None or not joins:
        return None
    sources = [from_.this] + [j.this for j in joins]
    aliases = [s.alias_or_name or f"#{i}" for i, s in enumerate(sources)]
    groups = _Groups(aliases)
    preds = _conjuncts(select.args.get("where"))
    for i, join in enumerate(joins, start=1):
        if join.args.get("using") or join.args.get("method"):
            groups.link([aliases[i], *aliases[:i]])
        preds += _conjuncts(join.args.get("on"))
    for pred in preds:
        groups.link(sorted(_refs(pred, select, aliases)))
    tables = [a for a, s in zip(aliases, sources) if not _free(s, ctes, catalog, dialect)]
    if len({groups.find(a) for a in tables}) <= 1:
        return None
    apart = [a for a in tables if groups.find(a) != groups.find(tables[0])]
    return Problem(
        "sql_cartesian_product",
        f"The query combines `{tables[0]}` with `{apart[0]}` without a join condition linking them "
        "(a cartesian product of every row with every row).",
        f"Join `{apart[0]}` to the other tables with an ON condition on their key columns "
        "(for example JOIN b ON b.a_id = a.id).",
    )  # fmt: skip


def shape_problem(tree: exp.Expression, catalog: Catalog | None = None, dialect: str = "",
                  max_depth: int = DEFAULT_MAX_DEPTH) -> Problem | None:
    ctes = {c.alias_or_name.lower(): c.this for c in tree.find_all(exp.CTE)}
    for with_ in tree.find_all(exp.With):
        if with_.args.get("recursive"):
            for cte in with_.expressions:
                problem = recursion_problem(cte, max_depth)
                if problem:
                    return problem
    for select in tree.find_all(exp.Select):
        problem = cartesian_problem(select, ctes, catalog, dialect)
        if problem:
            return problem
    return None
