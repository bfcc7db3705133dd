"""Render a catalog (or part of it) as a compact schema block for a prompt.

One line per column: name, type, comment, enum codes or example values, key markers. Tables are
written as `CREATE TABLE`-like blocks because small coder models read that shape best.
"""

from __future__ import annotations

from wenshu.knowledge.catalog import Catalog, ColumnInfo, TableInfo


def _note(col: ColumnInfo) -> str:
    notes = [col.comment] if col.comment else []
    if col.enum:
        notes.append("codes: " + ", ".join(f"{k}={v}" for k, v in col.enum.items()))
    elif col.samples:
        notes.append("e.g. " + ", ".join(repr(s) for s in col.samples[:3]))
    return "; ".join(notes)


def table_block(table: TableInfo) -> str:
    """DDL with comments and explicit key lines: the shape coder models read best."""
    pk = [c.name for c in table.columns if c.primary_key]
    entries = [(f"{c.name} {c.type or 'TEXT'}" + (" PRIMARY KEY" if pk == [c.name] else ""), _note(c))
               for c in table.columns]
    if len(pk) > 1:
        entries.append((f"PRIMARY KEY ({', '.join(pk)})", ""))
    for c in table.columns:
        if c.foreign_key and "." in c.foreign_key:
            ref_table, ref_col = c.foreign_key.split(".", 1)
            entries.append((f"FOREIGN KEY ({c.name}) REFERENCES {ref_table}({ref_col})", ""))
    lines = []
    for i, (code, note) in enumerate(entries):
        comma = "," if i < len(entries) - 1 else ""
        lines.append(f"  {code}{comma}" + (f" -- {note}" if note else ""))
    comment = f" -- {table.comment}" if table.comment else ""
    return "\n".join([f"CREATE TABLE {table.name} ({comment}", *lines, ");"])


def render_schema(catalog: Catalog, tables: list[str] | None = None) -> str:
    chosen = catalog.tables if tables is None else [t for t in catalog.tables if t.name in set(tables)]
    return "\n".join(table_block(t) for t in chosen)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters per token for ASCII, ~1 per CJK character."""
    cjk = sum(1 for ch in text if ord(ch) > 0x2E7F)
    return cjk + (len(text) - cjk) // 4 + 1
