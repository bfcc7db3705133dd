"""The result of a guard check and the validator protocol the agent and `wenshu sql run` code against."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

from wenshu.catalog import Catalog


@dataclass
class ValidationOutcome:
    passed: bool
    layer: int  # 0 when passed; 1 statement, 2 names and policy, 3 shape, limits and plan
    code: str  # "ok" when passed; otherwise a stable snake_case code (see docs/guard.md)
    reason: str  # on success: what was rewritten, if anything
    hint_for_model: str
    sql: str  # the statement to run (possibly rewritten); the input when refused

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Problem:
    """A refusal found by one check, before the orchestrator attaches the layer and the SQL."""

    code: str
    reason: str
    hint: str


class SQLValidator(Protocol):
    def validate(
        self, sql: str, *, dialect: str, catalog: Catalog | None = None, row_limit: int | None = None
    ) -> ValidationOutcome: ...


def refused(layer: int, problem: Problem, sql: str) -> ValidationOutcome:
    return ValidationOutcome(False, layer, problem.code, problem.reason, problem.hint, sql)


def passed(sql: str, note: str = "") -> ValidationOutcome:
    return ValidationOutcome(True, 0, "ok", note, "", sql)
