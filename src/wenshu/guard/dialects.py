"""Dialect names (SQLAlchemy backend or engine name -> sqlglot) and each engine's rules for the guard.

The rules come from the engine's adapter (`wenshu.engines.registry`); SQL for an engine without an
adapter (the generic dialect, '') is checked against every adapter's rules at once.
"""

from __future__ import annotations

import sqlglot

from wenshu.engines.adapter import EngineAdapter
from wenshu.engines.registry import adapter_for, generic


def sqlglot_dialect(name: str | None) -> str:
    """The sqlglot dialect for an engine or SQLAlchemy dialect name ('' = sqlglot's generic dialect)."""
    low = (name or "").lower().split("+", 1)[0]
    adapter = adapter_for(low)
    if adapter is not None:
        return adapter.dialect
    try:
        sqlglot.Dialect.get_or_raise(low)
    except (ValueError, KeyError):
        return ""
    return low


def rules(dialect: str) -> EngineAdapter:
    """The adapter whose rules apply to SQL of `dialect` (a sqlglot name); the union for an unknown one."""
    return adapter_for(dialect) or generic()


def shown(dialect: str) -> str:
    return dialect or "generic SQL"


def name_matches(written: str, real: str, *, quoted: bool, dialect: str) -> bool:
    """Whether an identifier as written in the SQL names the catalog object `real`, under the engine's
    rules (PostgreSQL folds unquoted names to lower case, ClickHouse compares exactly, most engines
    compare without case)."""
    return rules(dialect).names_match(written, real, quoted=quoted)
