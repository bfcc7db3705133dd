"""Constant folding for the layer 3 resource checks: the numeric value of an expression that does not
read any data (`1e9`, `1000 * 1000 * 1000`, `10 ^ 12`, `power(10, 12)`, `CAST('1e9' AS INT)`,
`(SELECT 1000000000)`), or None when the value depends on data or cannot be known.

Folding never raises and never loops: overflows become infinity, and only a fixed set of node
types (literals, arithmetic, casts, parentheses, constant scalar subqueries) is evaluated.
"""

from __future__ import annotations

import math

from sqlglot import exp

_MAX_HEX_DIGITS = 32


def _literal(node: exp.Literal) -> float | None:
    try:
        return float(node.this.replace("_", ""))
    except (ValueError, AttributeError):
        return None


def _hex(node: exp.HexString) -> float | None:
    text = str(node.this)
    if len(text) > _MAX_HEX_DIGITS:
        return math.inf
    try:
        return float(int(text, 16))
    except ValueError:
        return None


def _binary(node: exp.Binary, left: float, right: float) -> float | None:
    try:
        if isinstance(node, exp.Add):
            return left + right
        if isinstance(node, exp.Sub):
            return left - right
        if isinstance(node, exp.Mul):
            return left * right
        if isinstance(node, (exp.Div, exp.IntDiv)):
            return left / right if right else None
        if isinstance(node, exp.Pow):
            return math.pow(left, right)
    except (OverflowError, ValueError, ZeroDivisionError):
        return math.inf
    return None


def _scalar_subquery(node: exp.Subquery) -> exp.Expression | None:
    inner = node.this
    if isinstance(inner, exp.Select) and len(inner.expressions) == 1 and not inner.args.get("from_"):
        return inner.expressions[0]
    return None


def fold(node: exp.Expression | None, depth: int = 0) -> float | None:
    """The number `node` always evaluates to, or None."""
    if node is None or depth > 32:
        return None
    if isinstance(node, exp.Literal):
        return None if node.is_string else _literal(node)
    if isinstance(node, exp.HexString):
        return _hex(node)
    if isinstance(node, (exp.Paren, exp.Alias)):
        return fold(node.this, depth + 1)
    if isinstance(node, exp.Neg):
        inner = fold(node.this, depth + 1)
        return None if inner is None else -inner
    if isinstance(node, (exp.Cast, exp.TryCast)):
        inner = node.this
        if isinstance(inner, exp.Literal) and inner.is_string:
            return _literal(inner)
        return fold(inner, depth + 1)
    if isinstance(node, exp.Subquery):
        return fold(_scalar_subquery(node), depth + 1)
    if isinstance(node, exp.Binary):
        left, right = fold(node.this, depth + 1), fold(node.expression, depth + 1)
        return None if left is None or right is None else _binary(node, left, right)
    return None
