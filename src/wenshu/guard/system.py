"""Layer 2 system catalogs: tables and table functions outside the datasource are never read.

Each engine's adapter names its system schemas and prefixes. Refused in every dialect: a table in any
engine's system schema (`information_schema`, `pg_catalog`, `mysql`, `performance_schema`, `sys`,
ClickHouse `system`), qualified with or without a database or catalog part. Per engine, schemas by
prefix (PostgreSQL `pg_*`), unqualified system tables by prefix (PostgreSQL `pg_*`, SQLite `sqlite_*`
and `pragma_*`, DuckDB `duckdb_*`) and catalog table functions (`pg_*(...)`, `pragma_*(...)`,
`duckdb_*(...)`), and engine metadata columns (Spark `_metadata`: the files behind a table). A table
qualified by another database or schema than the engine's own default (`public`, `main`, ...) is
outside the datasource and refused too (`sql_outside_datasource`): a read-only role may still see other
databases. The generic dialect (an unknown engine) uses every adapter's rules. A table the
datasource catalog lists under that exact name, unqualified by a system schema, is the
datasource's own and passes.
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.engines.registry import every_system_schema
from wenshu.guard.dialects import name_matches, rules
from wenshu.guard.outcome import Problem


def _system_schema(name: str, dialect: str) -> bool:
    low = name.lower()
    return low in every_system_schema() or low.startswith(rules(dialect).system_schema_prefixes)


def is_system_table(table: exp.Table, dialect: str) -> bool:
    """Whether a named table reference is a system catalog table or view."""
    if any(_system_schema(part, dialect) for part in (table.db, table.catalog) if part):
        return True
    name = table.name.lower()
    return name in every_system_schema() or name.startswith(rules(dialect).system_table_prefixes)


def is_system_function(func: exp.Expression, dialect: str) -> bool:
    """Whether a table function (`FROM pragma_table_info('t')`) reads the engine's catalogs."""
    if not isinstance(func, exp.Func):
        return False
    name = str(func.name if isinstance(func, exp.Anonymous) else func.key).lower()
    return name.startswith(rules(dialect).system_function_prefixes)


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


def _elsewhere(shown: str, catalog: Catalog | None) -> Problem:
    return Problem(
        "sql_outside_datasource",
        f"`{shown}` names a table of another database or schema, outside the datasource; it may not be read.",
        f"Write table names without a database or schema prefix ({shown.rsplit('.', 1)[-1]}), and use only "
        "the datasource's own tables.",
    )  # fmt: skip


def _foreign(table: exp.Table, dialect: str) -> bool:
    """A table qualified by a database, schema or catalog other than the datasource's own default one."""
    own = rules(dialect).own_schemas
    return any(part and part.lower() not in own for part in (table.db, table.catalog))


def system_problem(tree: exp.Expression, dialect: str, catalog: Catalog | None = None) -> Problem | None:
    """The first system table, catalog table function, engine metadata column or table of another
    database the statement reads, or None."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        shown = ".".join(p for p in (table.catalog, table.db, table.name) if p)
        if isinstance(table.this, exp.Identifier):
            if not table.db and table.name.lower() in ctes:
                continue
            if is_system_table(table, dialect) and not _own_table(table, catalog, dialect):
                return _refusal(shown, catalog)
            if _foreign(table, dialect):
                return _elsewhere(shown, catalog)
        elif is_system_function(table.this, dialect):
            return _refusal(f"{table.this.name}()", catalog)
    hidden = rules(dialect).metadata_columns
    for col in tree.find_all(exp.Column) if hidden else ():
        if col.name.lower() in hidden or (col.table or "").lower() in hidden:
            return _refusal(col.sql(dialect=dialect or None), catalog)
    return None
