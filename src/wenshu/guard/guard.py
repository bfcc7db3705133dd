"""The guard orchestrator: layers 1 -> 2 -> 3 (-> plan check), first refusal wins.

    guard = Guard(policy=GuardPolicy(deny_columns=["customers.phone"]), row_limit=1000)
    outcome = guard.check(sql, dialect="sqlite", catalog=catalog, url=url)

Layer 1 (`parse`, `statements`, `functions`) always runs; layer 2 always refuses system catalogs
outside the datasource (`system`), runs the access policy whenever one is set (`policy`, `columns`)
and the catalog name checks when a catalog is given (`names`); layer 3 runs the resource checks
(`resources`: constant-size bombs) and the static shape checks (`shape`, `recursion`), applies the
row limit (`limits`) and, when a URL is given, asks the database for its plan
(`wenshu.guard.plan`, optional). The codes are listed in docs/guard.md.
"""

from __future__ import annotations

import importlib

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.guard.columns import apply_column_policy
from wenshu.guard.dialects import sqlglot_dialect
from wenshu.guard.limits import apply_limit, edited_text, limit_problem
from wenshu.guard.names import unknown_column, unknown_table
from wenshu.guard.outcome import Problem, ValidationOutcome, passed, refused
from wenshu.guard.parse import MAX_SQL_CHARS, parse_one, too_complex
from wenshu.guard.policy import GuardPolicy, table_problem
from wenshu.guard.resources import resource_problem
from wenshu.guard.shape import shape_problem
from wenshu.guard.statements import statement_problem
from wenshu.guard.system import system_problem

_INTERNAL = Problem(
    "sql_check_failed", "The guard could not finish checking this SQL, so it was not run.",
    "Write a simpler, standard SELECT query.",
)  # fmt: skip


class _Refusal(Exception):
    def __init__(self, layer: int, problem: Problem):
        self.layer, self.problem = layer, problem


def _plan_module():
    """`wenshu.guard.plan` when it is installed, else None (the plan check is then skipped)."""
    try:
        return importlib.import_module("wenshu.guard.plan")
    except ModuleNotFoundError:
        return None


class Guard:
    """Checks one model-written statement; implements the `SQLValidator` protocol too."""

    def __init__(self, policy: GuardPolicy | None = None, row_limit: int | None = 1000, plan_limits=None,
                 *, max_sql_chars: int = MAX_SQL_CHARS, plan_timeout_s: float = 5.0,
                 max_size: int | None = None, max_recursion: int | None = None):
        if row_limit is not None and row_limit < 1:
            raise ValueError("row_limit must be a positive integer")
        self.policy = policy if policy is not None and not policy.empty else None
        self.row_limit = row_limit
        self.plan_limits = plan_limits
        self.max_sql_chars = max_sql_chars
        self.plan_timeout_s = plan_timeout_s
        self.max_size, self.max_recursion = _resource_bounds(max_size, max_recursion)
        self._visible: tuple[Catalog, Catalog] | None = None

    @classmethod
    def from_settings(cls, settings, policy: GuardPolicy | None = None) -> Guard:
        """A guard whose every bound comes from `settings` (row limit, plan limits, layer 3 bounds), not from
        the process-wide settings: what the caller passes in is what the guard enforces."""
        plan = _plan_module()
        return cls(policy, row_limit=settings.row_limit,
                   plan_limits=plan.PlanLimits.from_settings(settings) if plan is not None else None,
                   max_size=settings.guard_max_size, max_recursion=settings.guard_max_recursion)

    def validate(self, sql: str, *, dialect: str, catalog: Catalog | None = None,
                 row_limit: int | None = None) -> ValidationOutcome:
        """The `SQLValidator` form: the row limit comes with each call (None = no limit)."""
        if row_limit is not None and row_limit < 1:
            raise ValueError("row_limit must be a positive integer")
        return self._run(sql or "", sqlglot_dialect(dialect), catalog, None, row_limit)

    def check(self, sql: str, *, dialect: str, catalog: Catalog | None = None,
              url: str | None = None) -> ValidationOutcome:
        return self._run(sql or "", sqlglot_dialect(dialect), catalog, url, self.row_limit)

    def _run(self, sql: str, d: str, catalog, url, row_limit) -> ValidationOutcome:
        try:
            text, note = self._layers(sql, d, catalog, row_limit)
            if url:
                self._plan(url, text)
        except _Refusal as r:
            return refused(r.layer, r.problem, sql)
        except RecursionError:
            return refused(1, too_complex("checking it ran out of recursion depth"), sql)
        except Exception:  # noqa: BLE001 - a bug in a check must refuse, never pass or crash
            return refused(1, _INTERNAL, sql)
        return passed(text, note)

    def _layers(self, sql: str, d: str, catalog: Catalog | None, row_limit: int | None) -> tuple[str, str]:
        tree = parse_one(sql, d, max_chars=self.max_sql_chars)
        if isinstance(tree, Problem):
            raise _Refusal(1, tree)
        _raise(1, statement_problem(tree, d))
        rewritten = False
        _raise(2, system_problem(tree, d, catalog))
        if self.policy is not None:
            _raise(2, table_problem(tree, self.policy, d))
            rewritten, problem = apply_column_policy(tree, self.policy, catalog, d)
            _raise(2, problem)
        if catalog is not None:
            visible = self._visible_catalog(catalog)
            _raise(2, unknown_table(tree, visible, d) or unknown_column(tree, visible, d))
        _raise(3, resource_problem(tree, self.max_size) or shape_problem(tree, catalog, d, self.max_recursion))
        return self._limited(sql, d, tree, rewritten, row_limit)

    def _limited(self, sql: str, d: str, tree: exp.Expression, rewritten: bool, row_limit) -> tuple[str, str]:
        notes = ["SELECT * was expanded to the columns the access policy allows."] if rewritten else []
        text = tree.sql(dialect=d or None) if rewritten else sql.strip()
        if row_limit is not None:
            try:
                tree, note = apply_limit(tree, row_limit)
            except Exception as err:  # noqa: BLE001 - sqlglot could not rewrite this shape
                raise _Refusal(3, limit_problem(err, row_limit)) from err
            if note:
                notes.append(note)
                edited = None if rewritten else edited_text(sql, d, tree, row_limit)
                text = edited or tree.sql(dialect=d or None)
        return text, " ".join(notes)

    def _visible_catalog(self, catalog: Catalog) -> Catalog:
        if self.policy is None:
            return catalog
        if self._visible is None or self._visible[0] is not catalog:
            self._visible = (catalog, self.policy.visible_catalog(catalog))
        return self._visible[1]

    def _plan(self, url: str, sql: str) -> None:
        plan = _plan_module()
        if plan is None:
            return
        try:  # limits None: the plan module's defaults (from settings)
            found = plan.check_plan(url, sql, self.plan_limits, self.plan_timeout_s)
        except Exception as err:  # noqa: BLE001 - no plan means no proof the query is cheap
            detail = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
            raise _Refusal(3, Problem(
                "sql_plan_unavailable", f"The database could not explain this query: {detail}.",
                "Check the query against the schema and simplify it.",
            )) from err  # fmt: skip
        if found is not None:
            raise _Refusal(3, Problem(found.code, found.reason, found.hint))


def _resource_bounds(max_size: int | None, max_recursion: int | None) -> tuple[int, int]:
    """The layer 3 bounds: as given (`Guard.from_settings` passes the configured ones), else the
    settings' defaults; never the process-wide settings."""
    from wenshu.settings import Settings

    fields = Settings.model_fields
    return (fields["guard_max_size"].default if max_size is None else max_size,
            fields["guard_max_recursion"].default if max_recursion is None else max_recursion)


def _raise(layer: int, problem: Problem | None) -> None:
    if problem is not None:
        raise _Refusal(layer, problem)


def guard_check(validator, sql: str, *, dialect: str, catalog: Catalog | None, row_limit: int | None,
                url: str | None = None, policy: GuardPolicy | None = None) -> ValidationOutcome:
    """The agent's validate step: a `Guard` runs with the datasource's policy and plan check (URL);
    any other `SQLValidator` keeps its plain `validate` call."""
    if not isinstance(validator, Guard):
        return validator.validate(sql, dialect=dialect, catalog=catalog, row_limit=row_limit)
    guard = Guard(policy if policy is not None else validator.policy, row_limit=row_limit,
                  plan_limits=validator.plan_limits, max_sql_chars=validator.max_sql_chars,
                  plan_timeout_s=validator.plan_timeout_s, max_size=validator.max_size,
                  max_recursion=validator.max_recursion)  # fmt: skip
    return guard.check(sql, dialect=dialect, catalog=catalog, url=url)
