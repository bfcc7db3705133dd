"""Per-datasource access policy: which tables may be read and which columns never.

Stored in the datasource's `options["policy"]` as
`{"allow_tables": [...], "deny_tables": [...], "deny_columns": ["customers.phone", ...]}`.
An empty `allow_tables` allows every table not denied. Names compare without case. The column
rules (denied columns anywhere, `SELECT *` expansion) live in `wenshu.guard.columns`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.guard.names import is_named_table, is_system_table
from wenshu.guard.outcome import Problem


def _names(values) -> tuple[str, ...]:
    out: list[str] = []
    for v in values or ():
        v = str(v).strip()
        if v and v.lower() not in {o.lower() for o in out}:
            out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class GuardPolicy:
    allow_tables: tuple[str, ...] = ()
    deny_tables: tuple[str, ...] = ()
    deny_columns: tuple[str, ...] = ()  # "table.column"

    def __post_init__(self) -> None:
        for key in ("allow_tables", "deny_tables", "deny_columns"):
            object.__setattr__(self, key, _names(getattr(self, key)))
        bad = [c for c in self.deny_columns if "." not in c]
        if bad:
            raise ValueError(f"deny_columns entries must look like table.column, not {bad[0]!r}")

    @classmethod
    def from_dict(cls, data: dict | None) -> GuardPolicy:
        data = data or {}
        return cls(data.get("allow_tables", ()), data.get("deny_tables", ()), data.get("deny_columns", ()))

    def to_dict(self) -> dict:
        return {"allow_tables": list(self.allow_tables), "deny_tables": list(self.deny_tables),
                "deny_columns": list(self.deny_columns)}  # fmt: skip

    @property
    def empty(self) -> bool:
        return not (self.allow_tables or self.deny_tables or self.deny_columns)

    def table_allowed(self, name: str) -> bool:
        low = name.lower()
        if low in {t.lower() for t in self.deny_tables}:
            return False
        return not self.allow_tables or low in {t.lower() for t in self.allow_tables}

    def denied_columns(self, table: str) -> set[str]:
        """Lower-case column names denied in `table`."""
        low = table.lower()
        pairs = (c.lower().rsplit(".", 2)[-2:] for c in self.deny_columns)
        return {col for tab, col in pairs if tab == low}

    def visible_catalog(self, catalog: Catalog) -> Catalog:
        """The catalog as this policy lets the model see it (for name checks and their hints)."""
        tables = []
        for t in catalog.tables:
            if not self.table_allowed(t.name):
                continue
            hidden = self.denied_columns(t.name)
            tables.append(replace(t, columns=[c for c in t.columns if c.name.lower() not in hidden]))
        return replace(catalog, tables=tables)


def table_problem(tree: exp.Expression, policy: GuardPolicy, dialect: str) -> Problem | None:
    """A denied (or not allowed) table read anywhere in the statement."""
    cte_names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not is_named_table(table) or (not table.db and table.name.lower() in cte_names):
            continue
        system = is_system_table(table, dialect)
        if (system and policy.allow_tables) or (not system and not policy.table_allowed(table.name)):
            name = table.name
            allowed = ", ".join(policy.allow_tables)
            use = f"Use only these tables: {allowed}." if allowed else "Answer without this table."
            return Problem(
                "sql_table_denied", f"Table `{name}` may not be read from this datasource (access policy).",
                f"Table `{name}` is off limits by policy. {use}",
            )  # fmt: skip
    return None
