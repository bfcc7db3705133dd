"""Difficulty buckets of a gold SQL query: easy, medium, hard, extra.

Our own classification, modelled on the Spider paper's idea (count the SQL components), computed
from the sqlglot tree instead of Spider's parser:

- `c1` (one point each): WHERE, GROUP BY, ORDER BY, LIMIT, each JOIN, each OR, each LIKE;
- `c2` (one point each): each UNION / INTERSECT / EXCEPT, each nested SELECT (subquery or CTE);
- `others` (one point each): more than one aggregate, more than one selected column, more than one
  WHERE condition, more than one GROUP BY column.

easy: c1 <= 1, c2 = 0, others = 0.
medium: c2 = 0 and ((c1 <= 1 and others <= 2) or (c1 <= 2 and others < 2)).
hard: (c2 = 0 and ((c1 <= 2 and others > 2) or (2 < c1 <= 3 and others <= 2))) or
      (c2 = 1 and c1 <= 1 and others = 0).
extra: everything else. SQL that does not parse is `unknown`.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

BUCKETS = ("easy", "medium", "hard", "extra")


def _conditions(where: exp.Where | None) -> int:
    if where is None:
        return 0
    return 1 + sum(1 for _ in where.find_all(exp.And, exp.Or))


def components(tree: exp.Expression) -> tuple[int, int, int]:
    """(c1, c2, others) of a parsed query; see the module docstring."""
    selects = list(tree.find_all(exp.Select))
    setops = sum(1 for _ in tree.find_all(exp.Union, exp.Intersect, exp.Except))
    c2 = setops + max(len(selects) - 1 - setops, 0)  # each set operation brings one SELECT of its own
    c1 = sum(1 for _ in tree.find_all(exp.Join, exp.Or, exp.Like))
    others = 0
    for sel in selects:
        c1 += sum(1 for key in ("where", "group", "order", "limit") if sel.args.get(key))
        aggs = sum(1 for _ in sel.find_all(exp.AggFunc))
        group = sel.args.get("group")
        others += (aggs > 1) + (len(sel.expressions) > 1) + (_conditions(sel.args.get("where")) > 1)
        others += bool(group is not None and len(group.expressions) > 1)
    return c1, c2, others


def hardness(sql: str) -> str:
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001 - any parser failure means we cannot classify it
        return "unknown"
    if tree is None:
        return "unknown"
    c1, c2, others = components(tree)
    if c1 <= 1 and c2 == 0 and others == 0:
        return "easy"
    if c2 == 0 and ((c1 <= 1 and others <= 2) or (c1 <= 2 and others < 2)):
        return "medium"
    if (c2 == 0 and ((c1 <= 2 and others > 2) or (2 < c1 <= 3 and others <= 2))) or (
        c2 == 1 and c1 <= 1 and others == 0
    ):
        return "hard"
    return "extra"
