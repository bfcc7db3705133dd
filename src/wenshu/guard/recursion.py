"""Layer 3 recursive CTEs: each recursive step must end, and within a bounded number of rounds.

A step is bounded by data (a join condition, or a WHERE reading another relation or a subquery),
by a LIMIT of at most `max_depth` on the CTE, or by WHERE conditions that compare the CTE's own
counter columns with constants. For the last kind the number of rounds is estimated from the
anchor's start value, the step's increment and the constant (`x < 1e12` counting up from 1 by 1
takes about 1e12 rounds; the smallest estimate of the AND-ed conditions wins) and refused above
`max_depth` (default `settings.guard_max_recursion`, 100,000). A step with no condition at all,
or one whose counter moves away from its bound, is refused as unbounded.
"""

from __future__ import annotations

import math

from sqlglot import exp

from wenshu.guard.constants import fold
from wenshu.guard.outcome import Problem

DEFAULT_MAX_DEPTH = 100_000
_RANGE = (exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NEQ, exp.EQ)
_FLIP = {exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT, exp.GTE: exp.LTE, exp.NEQ: exp.NEQ, exp.EQ: exp.EQ}


def _branches(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.SetOperation):
        return _branches(node.this) + _branches(node.expression)
    return [node.this if isinstance(node, exp.Subquery) else node]


def _reads_self(select: exp.Expression, name: str) -> bool:
    return any(t.name.lower() == name and not t.db for t in select.find_all(exp.Table))


def _conjuncts(node: exp.Expression | None) -> list[exp.Expression]:
    if isinstance(node, (exp.Where, exp.Paren)):
        return _conjuncts(node.this)
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [] if node is None else [node]


class _Step:
    """One recursive SELECT with what is known of its counters."""

    def __init__(self, step: exp.Select, name: str, columns: list[str], anchor: exp.Expression | None):
        self.step, self.columns, self.anchor = step, columns, anchor
        sources = [step.args["from_"].this] if step.args.get("from_") else []
        sources += [j.this for j in step.args.get("joins") or []]
        self.own = {s.alias_or_name.lower() for s in sources if isinstance(s, exp.Table) and s.name.lower() == name}
        self.alone = len(sources) == 1

    def reads_data(self, pred: exp.Expression) -> bool:
        if pred.find(exp.Select, exp.Subquery):
            return True
        for col in pred.find_all(exp.Column):
            if (col.table and col.table.lower() not in self.own) or (not col.table and not self.alone):
                return True
        return False

    def _start_and_change(self, col: exp.Column) -> tuple[float, exp.Expression | None]:
        low = col.name.lower()
        if low not in self.columns:
            return 0.0, None
        i = self.columns.index(low)
        start = None
        if isinstance(self.anchor, exp.Select) and i < len(self.anchor.expressions):
            start = fold(self.anchor.expressions[i])
        step = self.step.expressions[i] if i < len(self.step.expressions) else None
        return (0.0 if start is None else start), step

    def rounds(self, pred: exp.Expression) -> float | None:
        """Rounds until `pred` stops the recursion, or None when it cannot tell."""
        if isinstance(pred, exp.Between):
            low, high = fold(pred.args.get("low")), fold(pred.args.get("high"))
            if low is None or high is None or not isinstance(pred.this, exp.Column):
                return None
            up = self._rounds(pred.this, exp.LTE, high)
            down = self._rounds(pred.this, exp.GTE, low)
            return None if up is None or down is None else min(up, down)
        if not isinstance(pred, _RANGE):
            return None
        op, left, right = type(pred), pred.this, pred.expression
        if fold(left) is not None:
            op, left, right = _FLIP[op], right, left
        bound = fold(right)
        cols = list(left.find_all(exp.Column))
        if bound is None or len(cols) != 1:
            return None
        return self._rounds(cols[0], op, bound)

    def _rounds(self, col: exp.Column, op: type, bound: float) -> float | None:
        start, change = self._start_and_change(col)
        if change is None:
            return None
        inc = _increment(change, col.name.lower())
        factor = _factor(change, col.name.lower())
        if factor is not None and op in (exp.LT, exp.LTE) and start > 0:
            return math.log(max(bound / start, 1.0)) / math.log(factor)
        if inc == 0:
            return math.inf  # the counter never changes: the condition never turns false
        if op is exp.EQ:
            return 1.0
        if inc is None:  # an increment we cannot read: assume steps of one
            return abs(bound - start)
        if op in (exp.LT, exp.LTE):
            return max(bound - start, 0) / inc if inc > 0 else math.inf
        if op in (exp.GT, exp.GTE):
            return max(start - bound, 0) / -inc if inc < 0 else math.inf
        return abs(bound - start) / abs(inc)


def _increment(change: exp.Expression, name: str) -> float | None:
    """How much a counter moves per round: `x + 2` -> 2, `x - 1` -> -1, `x` -> 0; else None."""
    if isinstance(change, exp.Alias):
        change = change.this
    if isinstance(change, exp.Column) and change.name.lower() == name:
        return 0.0
    if isinstance(change, (exp.Add, exp.Sub)):
        left, right = change.this, change.expression
        sign = -1.0 if isinstance(change, exp.Sub) else 1.0
        if isinstance(left, exp.Column) and left.name.lower() == name and fold(right) is not None:
            return sign * fold(right)
        if isinstance(change, exp.Add) and isinstance(right, exp.Column) and right.name.lower() == name:
            return fold(left)
    return None


def _factor(change: exp.Expression, name: str) -> float | None:
    """The growth factor of a counter multiplied each round (`x * 2` -> 2), when above 1."""
    if isinstance(change, exp.Alias):
        change = change.this
    if not isinstance(change, exp.Mul):
        return None
    left, right = change.this, change.expression
    if isinstance(right, exp.Column):
        left, right = right, left
    k = fold(right)
    ok = isinstance(left, exp.Column) and left.name.lower() == name and k is not None and k > 1
    return k if ok else None


def _step_rounds(s: _Step, max_depth: int) -> float | None:
    """Estimated rounds of one recursive step: None when bounded by data or unknown, inf when endless."""
    step = s.step
    limit = step.args.get("limit")
    if limit is not None:
        n = fold(limit.expression) if isinstance(limit, exp.Limit) else None
        if n is None or n <= max_depth:
            return None
    if any(j.args.get("on") or j.args.get("using") for j in step.args.get("joins") or []):
        return None
    where = step.args.get("where")
    if where is None or not where.find(exp.Column):
        return math.inf
    estimates = []
    for pred in _conjuncts(where):
        if s.reads_data(pred):
            return None
        n = s.rounds(pred)
        if n is not None:
            estimates.append(n)
    return min(estimates) if estimates else None


def _columns(cte: exp.CTE, anchor: exp.Expression | None) -> list[str]:
    alias = cte.args.get("alias")
    if alias is not None and alias.columns:
        return [c.name.lower() for c in alias.columns]
    if isinstance(anchor, exp.Select):
        return [p.alias_or_name.lower() for p in anchor.expressions]
    return []


def recursion_problem(cte: exp.CTE, max_depth: int = DEFAULT_MAX_DEPTH) -> Problem | None:
    body, name = cte.this, cte.alias_or_name.lower()
    if not isinstance(body, exp.SetOperation):
        return None
    limit = body.args.get("limit")
    if limit is not None:
        n = fold(limit.expression) if isinstance(limit, exp.Limit) else None
        if n is None or n <= max_depth:
            return None
    branches = _branches(body)
    steps = [b for b in branches if isinstance(b, exp.Select) and _reads_self(b, name)]
    anchor = next((b for b in branches if not any(b is s for s in steps)), None)
    columns = _columns(cte, anchor)
    for step in steps:
        rounds = _step_rounds(_Step(step, name, columns, anchor), max_depth)
        if rounds is not None and math.isinf(rounds):
            return Problem(
                "sql_unbounded_recursion",
                f"The recursive CTE `{cte.alias_or_name}` has no condition that ends the recursion.",
                "Add a WHERE condition to the recursive step (for example WHERE n < 100) or a LIMIT inside the CTE.",
            )  # fmt: skip
        if rounds is not None and rounds > max_depth:
            return Problem(
                "sql_recursion_too_deep",
                f"The recursive CTE `{cte.alias_or_name}` would run about {rounds:,.0f} rounds "
                f"(at most {max_depth:,} allowed).",
                f"Bound the recursion by at most {max_depth:,} rounds (for example WHERE n < 1000), or "
                "join the recursive step to the data it walks.",
            )  # fmt: skip
    return None
