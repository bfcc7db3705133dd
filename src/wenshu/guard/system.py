"""Layer 2 system catalogs: tables and table functions outside the datasource are never read.

Refused in every dialect: a table in a system schema (`information_schema`, `pg_catalog` and any
`pg_*` schema, `mysql`, `performance_schema`, `sys`, ClickHouse/Trino `system`), qualified with
or without a database or catalog part. Per engine, unqualified system tables are recognised by
prefix: PostgreSQL `pg_*` (pg_authid, pg_shadow, pg_stat_activity, pg_roles, ...), SQLite
`sqlite_*` (sqlite_master, sqlite_schema, sqlite_temp_master, sqlite_sequence, sqlite_stat1) and
`pragma_*` (eponymous virtual tables), DuckDB `duckdb_*`; and table functions PostgreSQL `pg_*(...)`, SQLite/DuckDB `pragma_*(...)`,
DuckDB `duckdb_*(...)`. The generic dialect (an unknown engine) uses every rule. A table the
datasource catalog lists under that exact name, unqualified by a system schema, is the
datasource's own and passes.
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.guard.dialects import name_matches
from wenshu.guard.outcome import Problem

SYSTEM_SCHEMAS = {"information_schema", "pg_catalog", "performance_schema", "sys", "mysql", "system"}
TABLE_PREFIXES = {
    "sqlite": ("sqlite_", "pragma_"), "postgres": ("pg_",), "duckdb": ("duckdb_", "sqlite_", "pg_", "pragma_"),
}  # fmt: skip
FUNCTION_PREFIXES = {"sqlite": ("pragma_",), "postgres": ("pg_",), "duckdb": ("duckdb_", "pragma_")}
ALL_TABLE_PREFIXES = tuple(sorted({p for ps in TABLE_PREFIXES.values() for p in ps}))
ALL_FUNCTION_PREFIXES = tuple(sorted({p for ps in FUNCTION_PREFIXES.values() for p in ps}))


def _system_schema(name: str, dialect: str) -> bool:
    low = name.lower()
    return low in SYSTEM_SCHEMAS or (dialect in ("postgres", "") and low.startswith("pg_"))


def _prefixes(table: dict, every: tuple, dialect: str) -> tuple[str, ...]:
    return table.get(dialect, ()) if dialect else every


def is_system_table(table: exp.Table, dialect: str) -> bool:
    """Whether a named table reference is a system catalog table or view."""
    if any(_system_schema(part, dialect) for part in (table.db, table.catalog) if part):
        return True
    name = table.name.lower()
    return name in SYSTEM_SCHEMAS or name.startswith(_prefixes(TABLE_PREFIXES, ALL_TABLE_PREFIXES, dialect))


def is_system_function(func: exp.Expression, dialect: str) -> bool:
    """Whether a table function (`FROM pragma_table_info('t')`) reads the engine's catalogs."""
    if not isinstance(func, exp.Func):
        return False
    name = str(func.name if isinstance(func, exp.Anonymous) else func.key).lower()
    return name.startswith(_prefixes(FUNCTION_PREFIXES, ALL_FUNCTION_PREFIXES, dialect))


def _own_table(table: exp.Table, catalog: Catalog | None, dialect: str) -> bool:
    if catalog is None or any(part for part in (table.db, table.catalog)):
        return False
    info = catalog.table(table.name)
    quoted = isinstance(table.this, exp.Identifier) and table.this.quoted
    return info is not None and name_matches(table.name, info.name, quoted=quoted, dialect=dialect)


def _refusal(shown: str, catalog: Catalog | None) -> Problem:
    names = catalog.table_names() if catalog is not None else []
    listed = ", ".join(names[:15]) + (", ..." if len(names) > 15 else "")
    use = f"Use only the datasource's tables: {listed}." if names else "Use only the datasource's own tables."
    return Problem(
        "sql_system_table",
        f"`{shown}` is a system catalog of the database engine, outside the datasource; it may not be read.",
        f"Do not query system tables or catalogs ({shown}). {use}",
    )  # fmt: skip


def system_problem(tree: exp.Expression, dialect: str, catalog: Catalog | None = None) -> Problem | None:
    """The first system table or catalog table function the statement reads, or None."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier):
            if (not table.db and table.name.lower() in ctes) or not is_system_table(table, dialect):
                continue
            if not _own_table(table, catalog, dialect):
                return _refusal(".".join(p for p in (table.catalog, table.db, table.name) if p), catalog)
        elif is_system_function(table.this, dialect):
            return _refusal(f"{table.this.name}()", catalog)
    return None
