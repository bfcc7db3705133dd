"""Functions and table functions with side effects, refused per engine (each adapter lists its own).

A function is denied when it reads or writes files, reaches the network or another database,
sleeps or burns CPU on purpose, loads code, changes settings or takes locks, or runs SQL given as
a string (which would hide a write from the statement check). Names are matched without case, for
both sqlglot's known function classes and unknown (Anonymous) calls, qualified or quoted.
The generic dialect (unknown engine) uses the union of every adapter's list.
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.guard.dialects import rules
from wenshu.guard.outcome import Problem

def denied_names(dialect: str) -> frozenset[str]:
    """The names denied for `dialect` (its adapter's list); every list at once for an unknown engine."""
    return rules(dialect).denied_functions


def function_names(node: exp.Func) -> set[str]:
    """Every lower-case name a function node can be written as."""
    if isinstance(node, exp.Anonymous):
        return {str(node.name).lower()}
    names = {n.lower() for n in type(node).sql_names()}
    return names | {node.key.lower()}


def _denied(name: str) -> Problem:
    return Problem(
        "sql_forbidden_function",
        f"The function {name}() reads or writes files, reaches other servers, sleeps, changes "
        "settings or runs hidden SQL, and is not allowed.",
        f"Do not call {name}(); answer the question with plain SELECT over the datasource's tables.",
    )


def function_problem(node: exp.Func, dialect: str) -> Problem | None:
    hits = function_names(node) & denied_names(dialect)
    return _denied(sorted(hits)[0]) if hits else None


def table_source_problem(table: exp.Table, dialect: str) -> Problem | None:
    """Engines that read a file named in FROM (DuckDB `FROM 'data.csv'`; an unknown engine too)."""
    if not rules(dialect).files_in_from or not isinstance(table.this, exp.Identifier):
        return None
    name = table.name
    if any(ch in name for ch in "/\\:*") or "." in name:
        return Problem(
            "sql_forbidden_function", f"`FROM '{name}'` reads a file or URL, which is not allowed.",
            "Query only the datasource's tables, by name.",
        )  # fmt: skip
    return None
