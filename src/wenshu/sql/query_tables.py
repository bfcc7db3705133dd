"""Which table each part of a SELECT reads: its FROM and JOIN tables by alias, and the owner of a column.

Shared by the rewrites that reason about joins (`repeated_rows`, `join_keys`, `unused_joins`). A derived table in FROM
or JOIN makes the sources unknown (None): its columns are not in the catalog.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from wenshu.catalog import Catalog


def one_statement(sql: str, dialect: str) -> exp.Expression | None:
    """The one statement of `sql`, or None when it does not parse or holds several (the guard explains those)."""
    try:
        trees = sqlglot.parse(sql, read=dialect or None)
    except Exception:  # noqa: BLE001 - unparseable SQL is the guard's to explain
        return None
    return trees[0] if len(trees) == 1 else None


def source_tables(select: exp.Select) -> dict[str, str] | None:
    """alias (lower case) -> table name of the FROM and JOIN tables, or None for a derived table."""
    out: dict[str, str] = {}
    for source in [select.args.get("from_"), *(select.args.get("joins") or [])]:
        if source is None or not isinstance(source.this, exp.Table):
            return None
        out[source.this.alias_or_name.lower()] = source.this.name
    return out


def column_table(col: exp.Column, sources: dict[str, str], catalog: Catalog) -> str | None:
    """The table a column reads, by its qualifier or, unqualified, as the only source that has it."""
    if col.table:
        return sources.get(col.table.lower())
    owners = {t for t in sources.values() if (info := catalog.table(t)) and info.column(col.name)}
    return owners.pop() if len(owners) == 1 else None
