"""Render a catalog (or part of it) as a compact schema block for a prompt.

One line per column: name, type, comment, enum codes or example values, key markers. Tables are
written as `CREATE TABLE`-like blocks because small coder models read that shape best.
"""

from __future__ import annotations

from wenshu.knowledge.catalog import Catalog, ColumnInfo, TableInfo


def column_line(col: ColumnInfo) -> str:
    parts = [f"  {col.name} {col.type or 'TEXT'}"]
    notes = []
    if col.primary_key:
        notes.append("PK")
    if col.foreign_key:
        notes.append(f"-> {col.foreign_key}")
    if col.comment:
        notes.append(col.comment)
    if col.enum:
        notes.append("codes: " + ", ".join(f"{k}={v}" for k, v in col.enum.items()))
    elif col.samples:
        notes.append("e.g. " + ", ".join(repr(s) for s in col.samples[:3]))
    if notes:
        parts.append("-- " + "; ".join(notes))
    return " ".join(parts)


def table_block(table: TableInfo) -> str:
    head = f"CREATE TABLE {table.name} (" + (f"  -- {table.comment}" if table.comment else "")
    return "\n".join([head, *[column_line(c) for c in table.columns], ")"])


def render_schema(catalog: Catalog, tables: list[str] | None = None) -> str:
    chosen = catalog.tables if tables is None else [t for t in catalog.tables if t.name in set(tables)]
    return "\n".join(table_block(t) for t in chosen)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters per token for ASCII, ~1 per CJK character."""
    cjk = sum(1 for ch in text if ord(ch) > 0x2E7F)
    return cjk + (len(text) - cjk) // 4 + 1
