"""The SQL service: run a user's own SQL (`wenshu sql run`, `wenshu semantic compile --run`) through the
same guard and read-only executor the agent uses, and build the guard for `wenshu sql check`.

It sits beside the agent service and takes the open app store from its caller (the CLI opens it with
`wenshu.bootstrap`), so no capability below it has to know how the app is assembled."""

from __future__ import annotations

import time

from wenshu.agent.checked_run import CheckedRun
from wenshu.contracts import AgentResponse, TraceStep
from wenshu.errors import SQLRefused
from wenshu.guard import Guard, GuardPolicy
from wenshu.knowledge.sync import current_catalog
from wenshu.settings import Settings


def guard_for(settings: Settings, datasource: str, store):
    """(guard with the datasource's access policy, its synced catalog, its URL, its dialect)."""
    record = store.datasources.get(datasource)
    catalog = current_catalog(store, datasource, record.url)
    policy = GuardPolicy.from_dict(record.options.get("policy"))
    return Guard.from_settings(settings, policy), catalog, record.url, catalog.dialect


def run_checked(settings: Settings, store, sql: str, datasource: str) -> AgentResponse:
    """A person's own SQL through the one checked run path (`agent.checked_run`): layers 1-3 and the plan
    check, then the read-only executor (layer 4) and the result cache. Nothing is repaired: the statement
    that runs is the one the person wrote, bounded by the guard."""
    t0 = time.perf_counter()
    guard, catalog, url, _ = guard_for(settings, datasource, store)
    path = CheckedRun(guard, catalog, url, datasource=datasource, row_limit=settings.row_limit,
                      timeout_s=settings.statement_timeout_s, policy=guard.policy, cache=store.cache)
    checked = path.check(sql, repair=False)
    t1 = time.perf_counter()
    if not checked.passed:
        reason = checked.outcome.reason
        raise SQLRefused(f"Refused: {reason}", f"已拒绝：{reason}", code=checked.outcome.code)
    res = path.execute(checked.sql)
    t2 = time.perf_counter()
    return AgentResponse(
        conversation_id="", cached=res.cached,
        sql=checked.sql, columns=res.columns, rows=res.rows, row_count=res.row_count, truncated=res.truncated,
        trace=[TraceStep(node="validate", ms=round((t1 - t0) * 1000, 1)),
               TraceStep(node="execute", status="cached" if res.cached else "ok", ms=round((t2 - t1) * 1000, 1),
                         detail=f"{res.row_count} rows")],
    )
