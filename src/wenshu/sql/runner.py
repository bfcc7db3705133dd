"""Run a user's own SQL through the same guard and read-only executor the agent uses."""

from __future__ import annotations

import time

from wenshu.contracts import AgentResponse, TraceStep
from wenshu.errors import SQLRefused
from wenshu.settings import Settings
from wenshu.sql.execute import execute_readonly
from wenshu.sql.validate import BasicValidator, SQLValidator


def run_checked(settings: Settings, store, sql: str, datasource: str,
                validator: SQLValidator | None = None) -> AgentResponse:
    from wenshu.knowledge.catalog import load_catalog

    record = store.datasources.get(datasource)
    t0 = time.perf_counter()
    catalog = load_catalog(datasource, record.url)
    outcome = (validator or BasicValidator()).validate(
        sql, dialect=catalog.dialect, catalog=catalog, row_limit=settings.row_limit
    )
    t1 = time.perf_counter()
    if not outcome.passed:
        raise SQLRefused(f"Refused: {outcome.reason}", f"已拒绝：{outcome.reason}", code=outcome.code)
    res = execute_readonly(record.url, outcome.sql, row_limit=settings.row_limit,
                           timeout_s=settings.statement_timeout_s)
    t2 = time.perf_counter()
    return AgentResponse(
        conversation_id="",
        sql=outcome.sql, columns=res.columns, rows=res.rows, row_count=res.row_count, truncated=res.truncated,
        trace=[TraceStep(node="validate", ms=round((t1 - t0) * 1000, 1)),
               TraceStep(node="execute", ms=round((t2 - t1) * 1000, 1), detail=f"{res.row_count} rows")],
    )
