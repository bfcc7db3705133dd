"""One checked run path: repair → guard → execute → cache.

The graph's validate and execute steps, every candidate of the self-consistency vote and `wenshu sql
run` go through this one path, so none of them can skip a layer of the guard or the result cache:

- `check` repairs what the catalog can fix in code (a column on the wrong alias, a table used but not
  joined; `repair=False` for SQL a person wrote), then runs the guard's layers 1-3 and the plan check
  with the datasource's access policy and row limit;
- `execute` runs a checked statement read-only and bounded (layer 4), served from and stored in the
  result cache keyed by datasource, SQL and data version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wenshu.engines.execute import execute_readonly
from wenshu.guard.guard import guard_check
from wenshu.guard.outcome import ValidationOutcome
from wenshu.engines.execute import data_version
from wenshu.sql.repair import repair_sql
from wenshu.sql.repeated_rows import once_per_row
from wenshu.sql.unused_joins import drop_unused_joins


@dataclass
class Checked:
    outcome: ValidationOutcome
    source: str  # the statement the guard read: the input after repair
    repairs: list[str] = field(default_factory=list)  # what `repair_sql` changed, in words
    fired: list[str] = field(default_factory=list)  # ids of the repairs that changed it (agent/checks.py)

    @property
    def passed(self) -> bool:
        return self.outcome.passed

    @property
    def sql(self) -> str:
        """The statement to run (with its LIMIT, SELECT * expanded) when it passed, else what was checked."""
        return self.outcome.sql if self.outcome.passed else self.source


@dataclass
class Result:
    columns: list[str]
    rows: list[list]
    row_count: int
    truncated: bool
    cached: bool


class CheckedRun:
    """The path for one datasource: its catalog, URL, guard, policy, limits and result cache."""

    def __init__(self, validator, catalog, url: str, *, datasource: str, row_limit: int, timeout_s: float,
                 policy=None, cache=None):
        self.validator, self.catalog, self.url, self.datasource = validator, catalog, url, datasource
        self.row_limit, self.timeout_s, self.policy, self.cache = row_limit, timeout_s, policy, cache

    @classmethod
    def for_agent(cls, ctx, datasource: str) -> CheckedRun:
        catalog = ctx.catalog(datasource)
        return cls(ctx.validator, catalog, ctx.datasource_url, datasource=datasource, row_limit=ctx.settings.row_limit,
                   timeout_s=ctx.settings.statement_timeout_s, policy=ctx.policy, cache=ctx.cache)

    def check(self, sql: str, *, repair: bool = True, question: str | None = None, drop_joins: bool = True,
              once: bool = False) -> Checked:
        """`question`, when given, lets the unused-join repair judge which joins the question names; `once`
        lists or aggregates once the rows a join only repeats (the model's SQL, not a compiled plan's)."""
        notes: list[str] = []
        fired: list[str] = []
        steps = [("schema_repair", repair, lambda s: repair_sql(s, self.catalog, self.catalog.dialect)),
                 ("unused_join", drop_joins and bool(question),
                  lambda s: drop_unused_joins(s, self.catalog, self.catalog.dialect, question or "")),
                 ("repeated_rows", once, lambda s: once_per_row(s, self.catalog, self.catalog.dialect))]  # fmt: skip
        for check_id, enabled, step in steps:
            fixed = step(sql) if enabled else None
            if fixed is not None and fixed.changed:
                sql, notes, fired = fixed.sql, notes + fixed.notes, fired + [check_id]
        outcome = guard_check(self.validator, sql, dialect=self.catalog.dialect, catalog=self.catalog,
                              row_limit=self.row_limit, url=self.url, policy=self.policy)
        return Checked(outcome, sql, notes, fired)

    def execute(self, sql: str) -> Result:
        """A checked statement's rows, from the cache when the data has not changed; raises WenshuError."""
        version = data_version(self.url)
        key = self.cache.make_key(self.datasource, sql, version) if self.cache else None
        hit = self.cache.get(key) if key else None
        if hit is not None:
            return Result(hit.columns, hit.rows, hit.row_count, hit.truncated, cached=True)
        res = execute_readonly(self.url, sql, row_limit=self.row_limit, timeout_s=self.timeout_s)
        if key:
            self.cache.put(key, datasource=self.datasource, sql=sql, data_version=version, columns=res.columns,
                           rows=res.rows, row_count=res.row_count, truncated=res.truncated)
        return Result(res.columns, res.rows, res.row_count, res.truncated, cached=False)
