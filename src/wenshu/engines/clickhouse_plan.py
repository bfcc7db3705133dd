"""The ClickHouse plan estimate's arithmetic: rows each source reads (`EXPLAIN ESTIMATE` for tables,
the size of generators such as `numbers(n)`), multiplied across joins that have no column-to-column
equality (cross joins, commas, `ON 1 = 1`, `ON a.id <> b.id`), the largest side otherwise."""

from __future__ import annotations

import contextlib

import sqlglot
from sqlglot import exp


GENERATORS = {"numbers", "numbers_mt", "zeros", "zeros_mt", "generate_series", "generateseries"}


def _number(node) -> float | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        with contextlib.suppress(ValueError):
            return float(node.this)
    return None


def _generator_rows(func: exp.Expression) -> float:
    """Rows of numbers(n), numbers(start, n[, step]), generate_series(a, b[, step]); unbounded: inf."""
    name = (func.name if isinstance(func, exp.Anonymous) else func.sql_name()).lower()
    if name not in GENERATORS:
        return 1.0
    if isinstance(func, exp.Anonymous):
        args = [_number(a) for a in func.expressions]
    else:
        args = [_number(func.args[k]) for k in ("start", "end", "step") if func.args.get(k) is not None]
    if not args:
        return float("inf")  # numbers(): endless
    if None in args:
        return 1.0  # not literals: unknown
    if name.startswith("generate"):
        step = abs(args[2]) if len(args) > 2 and args[2] else 1.0
        return max((args[1] - args[0]) / step + 1, 0.0) if len(args) > 1 else 1.0
    count = args[0] if len(args) == 1 else args[1]
    return count / (abs(args[2]) or 1.0) if len(args) > 2 else count


def _keyed(join: exp.Join) -> bool:
    """Whether a join has an equality between columns (a hash join); else every pair is visited."""
    on = join.args.get("on")
    if join.args.get("using"):
        return True
    if on is None:
        return False
    return any(eq.this.find(exp.Column) and eq.expression.find(exp.Column) for eq in on.find_all(exp.EQ))


class _Shape:
    """Rows per source of one statement: a table read (its EXPLAIN ESTIMATE rows spread over the
    statement's references to it), a CTE or subquery (the rows it outputs), a generator function."""

    def __init__(self, tree: exp.Expression, read_rows: dict[str, float], totals: dict[str, float]):
        self.ctes = {cte.alias: cte.this for cte in tree.find_all(exp.CTE)}
        refs: dict[str, int] = {}
        for table in tree.find_all(exp.Table):
            if isinstance(table.this, exp.Identifier) and table.name not in self.ctes:
                refs[table.name] = refs.get(table.name, 0) + 1
        self.per_read = {n: read_rows[n] / refs[n] if n in read_rows else totals.get(n, 1.0) for n in refs}
        self.visiting: set[str] = set()

    def source(self, node) -> float:
        if isinstance(node, exp.Subquery):
            return self.output(node.this)
        if not isinstance(node, exp.Table):
            return 1.0
        if not isinstance(node.this, exp.Identifier):
            return _generator_rows(node.this) if isinstance(node.this, exp.Func) else 1.0
        if node.name in self.ctes and node.name not in self.visiting:
            self.visiting.add(node.name)
            try:
                return self.output(self.ctes[node.name])
            finally:
                self.visiting.discard(node.name)
        return max(self.per_read.get(node.name, 1.0), 1.0)

    def combined(self, select: exp.Select) -> float:
        """Row combinations a SELECT's FROM and joins form: x per join without a condition."""
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is None:
            return 1.0
        rows = self.source(from_.this)
        for join in select.args.get("joins") or []:
            if (join.args.get("kind") or "").upper() == "ARRAY":
                continue
            side = self.source(join.this)
            rows = max(rows, side) if _keyed(join) else rows * side
        return rows

    def output(self, query) -> float:
        if isinstance(query, exp.Subquery):
            return self.output(query.this)
        if isinstance(query, exp.SetOperation):
            return self.output(query.this) + self.output(query.expression)
        if not isinstance(query, exp.Select):
            return 1.0
        rows = self.combined(query)
        if not query.args.get("group") and any(e.find(exp.AggFunc) for e in query.expressions):
            rows = 1.0
        limit = query.args.get("limit")
        count = _number(limit.expression) if isinstance(limit, exp.Limit) else None
        return min(rows, count) if count is not None else rows


def worst_rows(sql: str, read_rows: dict[str, float], totals: dict[str, float]) -> float:
    """The most row combinations any SELECT of `sql` forms (0 when sqlglot cannot read it)."""
    try:
        tree = sqlglot.parse_one(sql, read="clickhouse")
    except sqlglot.errors.ParseError:
        return 0.0
    shape = _Shape(tree, read_rows, totals)
    return max((shape.combined(s) for s in tree.find_all(exp.Select)), default=0.0)
