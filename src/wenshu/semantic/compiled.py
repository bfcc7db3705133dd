"""What compiling a plan gives (`Compiled`) or refuses (`PlanNotCompilable`), and the SQL pieces both
compilers write: aggregations, comparison operators and literals."""

from __future__ import annotations

from dataclasses import dataclass

from wenshu.errors import InputError

AGG = {"sum": "SUM({e})", "avg": "AVG({e})", "min": "MIN({e})", "max": "MAX({e})", "count": "COUNT({e})",
       "count_distinct": "COUNT(DISTINCT {e})"}
OPS = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


class PlanNotCompilable(InputError):
    """A plan the semantic model cannot answer as asked; the free-SQL path may still answer it."""

    code = "plan_not_compilable"


@dataclass
class Compiled:
    sql: str
    columns: list[str]
    dialect: str


def literal(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "'" + str(value).replace("'", "''") + "'"
    return repr(value)


def key_column(dimension_name: str, lang: str) -> str:
    """The header of a keyed dimension's key, shown before its name (customer ID: namesakes told apart)."""
    return f"{dimension_name}ID" if lang == "zh" else f"{dimension_name} ID"
