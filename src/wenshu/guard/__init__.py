"""The SQL guard: layered, deterministic checks that a model-written statement is a safe read.

    from wenshu.guard import Guard, GuardPolicy
    outcome = Guard(policy, row_limit=1000).check(sql, dialect="sqlite", catalog=catalog, url=url)
"""

from wenshu.guard.dialects import sqlglot_dialect
from wenshu.guard.guard import Guard
from wenshu.guard.outcome import SQLValidator, ValidationOutcome
from wenshu.guard.policy import GuardPolicy

__all__ = ["Guard", "GuardPolicy", "SQLValidator", "ValidationOutcome", "sqlglot_dialect"]
