"""The query plan check (part of layer 3): ask the engine for its plan and refuse statements whose
estimated work is above configurable limits, before they run.

The engine's adapter produces the estimate (`EngineAdapter.estimate`, run through the same read-only
session as execution, under the time limit): SQLite the product of nested full scans from `EXPLAIN
QUERY PLAN`; PostgreSQL the total cost and the largest row estimate of `EXPLAIN (FORMAT JSON)`;
MySQL/MariaDB the product of `EXPLAIN` rows per SELECT; DuckDB, ClickHouse and Spark SQL their plans'
row estimates. An EXPLAIN that fails or times out raises a WenshuError (SQLExecutionError / SQLTimeout
/ DatasourceUnreachable), which the guard turns into a refusal: no plan means no proof that the query
is cheap. An adapter that cannot estimate at all gives None (the conformance suite fails such an adapter).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from wenshu.engines.adapter import PlanEstimate
from wenshu.engines.connections import translate_error
from wenshu.engines.registry import adapter_for_url

_HINT = (
    "Add WHERE filters (on indexed columns where possible), aggregate with GROUP BY, join tables on "
    "their keys, and avoid cross joins of large tables with themselves."
)


@dataclass(frozen=True)
class PlanLimits:
    max_cost: float = 1e7  # PostgreSQL total cost
    max_rows: float = 1e8  # rows the plan estimates to examine (every engine but SQLite)
    sqlite_max_scan_rows: float = 1e9  # product of nested full-scan sizes (SQLite)

    @classmethod
    def from_settings(cls, settings) -> PlanLimits:
        return cls(settings.plan_max_cost, settings.plan_max_rows, settings.plan_sqlite_max_scan_rows)


@dataclass(frozen=True)
class PlanProblem:
    code: str
    reason: str
    hint: str


def _big(n: float) -> str:
    return f"{n:,.0f}" if n < 1e15 else f"{n:.2e}"


def check_plan(url: str, sql: str, limits: PlanLimits | None = None, timeout_s: float = 5.0) -> PlanProblem | None:
    """A PlanProblem when the engine's estimate for `sql` is above `limits`; None when it is within
    them or the engine cannot be asked. Raises a WenshuError when the EXPLAIN fails."""
    limits = limits or PlanLimits()  # the settings' defaults; Guard.from_settings passes the configured ones
    try:
        adapter = adapter_for_url(url)
    except sa.exc.ArgumentError:
        return None
    try:
        estimate = adapter.estimate(url, sql, timeout_s)
    except sa.exc.SQLAlchemyError as err:
        raise translate_error(adapter, err, [], timeout_s, sql) from err
    return None if estimate is None else judge(estimate, limits)


def judge(estimate: PlanEstimate, limits: PlanLimits) -> PlanProblem | None:
    """The problem with an estimate under `limits`, or None."""
    if estimate.nested:
        if estimate.rows <= limits.sqlite_max_scan_rows:
            return None
        return PlanProblem(
            "sql_plan_too_costly",
            f"The query plan scans about {_big(estimate.rows)} row combinations (nested full scans), above the "
            f"limit of {_big(limits.sqlite_max_scan_rows)}.",
            _HINT,
        )
    if estimate.cost is not None and estimate.cost > limits.max_cost:
        return PlanProblem(
            "sql_plan_too_costly",
            f"The query plan's estimated cost is {_big(estimate.cost)}, above the limit of {_big(limits.max_cost)}.",
            _HINT,
        )
    if estimate.rows > limits.max_rows:
        return PlanProblem(
            "sql_plan_too_many_rows",
            f"The query plan estimates about {_big(estimate.rows)} rows examined, above the limit of "
            f"{_big(limits.max_rows)}.",
            _HINT,
        )
    return None
