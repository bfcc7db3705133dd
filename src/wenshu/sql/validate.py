"""Compatibility names for the first validator; the implementation is the guard (`wenshu.guard`).

`BasicValidator` is the `Guard` with no access policy; `validate(sql, dialect=, catalog=,
row_limit=)` keeps its old meaning (row_limit None = no limit, no plan check).
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.guard import Guard, SQLValidator, ValidationOutcome, sqlglot_dialect
from wenshu.guard.dialects import DIALECTS
from wenshu.guard.limits import apply_limit, edited_text
from wenshu.guard.statements import READ_ROOTS, WRITE_NODES, statement_problem

BasicValidator = Guard


def read_only_problem(tree: exp.Expression, dialect: str = "") -> tuple[str, str] | None:
    """(code, reason) when the statement is not a plain read query, else None."""
    problem = statement_problem(tree, dialect)
    return (problem.code, problem.reason) if problem else None


__all__ = [
    "DIALECTS", "READ_ROOTS", "WRITE_NODES", "BasicValidator", "SQLValidator", "ValidationOutcome",
    "apply_limit", "edited_text", "read_only_problem", "sqlglot_dialect",
]  # fmt: skip
