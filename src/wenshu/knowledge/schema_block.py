"""Render a catalog (or part of it) as a compact schema block for a prompt.

One line per column: name, type, comment, enum codes or example values, key markers. Tables are
written as `CREATE TABLE`-like blocks because small coder models read that shape best.
"""

from __future__ import annotations

import re

from wenshu.catalog import Catalog, ColumnInfo, TableInfo

_WIDE = re.compile("[\u2e80-\U0010ffff]")  # CJK and beyond: about one token per character


def _note(col: ColumnInfo, examples: bool = True) -> str:
    notes = [col.comment] if col.comment else []
    if col.enum:
        notes.append("codes: " + ", ".join(f"{k}={v}" for k, v in col.enum.items()))
    elif col.samples and examples:
        notes.append("e.g. " + ", ".join(repr(s) for s in col.samples[:3]))
    return "; ".join(notes)


def table_block(table: TableInfo, columns: list[str] | None = None, examples: bool = True) -> str:
    """DDL with comments and explicit key lines: the shape coder models read best.

    `columns` (None: all) keeps catalog order; the columns left out are counted in a comment line.
    `examples=False` leaves out the columns' example values (sample rows show them instead)."""
    keep = None if columns is None else {c.lower() for c in columns}
    shown = [c for c in table.columns if keep is None or c.name.lower() in keep]
    pk = [c.name for c in table.columns if c.primary_key]
    entries = [(f"{c.name} {c.type or 'TEXT'}" + (" PRIMARY KEY" if pk == [c.name] else ""), _note(c, examples))
               for c in shown]
    if len(pk) > 1:
        entries.append((f"PRIMARY KEY ({', '.join(pk)})", ""))
    for c in shown:
        if c.foreign_key and "." in c.foreign_key:
            ref_table, ref_col = c.foreign_key.split(".", 1)
            entries.append((f"FOREIGN KEY ({c.name}) REFERENCES {ref_table}({ref_col})", ""))
    lines = []
    for i, (code, note) in enumerate(entries):
        comma = "," if i < len(entries) - 1 else ""
        lines.append(f"  {code}{comma}" + (f" -- {note}" if note else ""))
    if len(shown) < len(table.columns):
        lines.append(f"  -- ... {len(table.columns) - len(shown)} more columns")
    comment = f" -- {table.comment}" if table.comment else ""
    return "\n".join([f"CREATE TABLE {table.name} ({comment}", *lines, ");"])


def rows_block(table: TableInfo, columns: list[str] | None = None) -> str:
    """The table's sample rows under a `SELECT * ... LIMIT n` comment, tab-separated ("" without rows)."""
    if not table.sample_rows:
        return ""
    keep = None if columns is None else {c.lower() for c in columns}
    idx = [i for i, c in enumerate(table.columns) if keep is None or c.name.lower() in keep]
    n = len(table.sample_rows)
    lines = [f"/*\n{n} example rows:", f"SELECT * FROM {table.name} LIMIT {n};",
             "\t".join(table.columns[i].name for i in idx)]
    for row in table.sample_rows:
        lines.append("\t".join("NULL" if i >= len(row) or row[i] is None else row[i] for i in idx))
    return "\n".join(lines) + "\n*/"


def ddl_table(table: TableInfo, columns: list[str] | None = None) -> str:
    """Layout "ddl": `CREATE TABLE` with keys and notes, then a few rows (the layout of text-to-SQL training data)."""
    rows = rows_block(table, columns)
    return table_block(table, columns, examples=not rows) + ("\n" + rows if rows else "")


def render_table(table: TableInfo, columns: list[str] | None = None, layout: str = "compact") -> str:
    """One table in the prompt's schema layout: "compact" (the default) or "ddl"."""
    return ddl_table(table, columns) if layout == "ddl" else compact_table(table, columns)


def render_schema(catalog: Catalog, tables: list[str] | None = None) -> str:
    chosen = catalog.tables if tables is None else [t for t in catalog.tables if t.name in set(tables)]
    return "\n".join(table_block(t) for t in chosen)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters per token for ASCII, ~1 per CJK character."""
    cjk = len(_WIDE.findall(text))
    return cjk + (len(text) - cjk) // 4 + 1


# The compact form used by recall: a table line with its keys, then one line per column
# (`name type -- comment; e.g. v1, v2`). Columns left out by recall are counted, not listed.


def _fk_refs(table: TableInfo) -> list[str]:
    refs = []
    for c in table.columns:
        if c.foreign_key and "." in c.foreign_key:
            refs.append(f"{c.name} -> {c.foreign_key}")
    return refs


def compact_header(table: TableInfo) -> str:
    keys = []
    pk = [c.name for c in table.columns if c.primary_key]
    if pk:
        keys.append("PK " + ", ".join(pk))
    refs = _fk_refs(table)
    if refs:
        keys.append("FK " + ", ".join(refs))
    head = f"TABLE {table.name}" + (f" ({'; '.join(keys)})" if keys else "")
    return head + (f" -- {table.comment}" if table.comment else "")


def compact_column(col: ColumnInfo) -> str:
    note = _note(col)
    return f"  {col.name} {col.type or 'TEXT'}" + (f" -- {note}" if note else "")


def compact_table(table: TableInfo, columns: list[str] | None = None) -> str:
    """A table in compact form; `columns` (None: all) keeps catalog order, the rest are counted."""
    keep = None if columns is None else {c.lower() for c in columns}
    chosen = [c for c in table.columns if keep is None or c.name.lower() in keep]
    lines = [compact_header(table), *(compact_column(c) for c in chosen)]
    left = len(table.columns) - len(chosen)
    if left:
        lines.append(f"  ... {left} more columns")
    return "\n".join(lines)


def compact_schema(catalog: Catalog, tables: list[str] | None = None,
                   columns: dict[str, list[str]] | None = None) -> str:
    """Tables in the order given (None: catalog order, all of them); `columns` limits a table's columns."""
    names = catalog.table_names() if tables is None else tables
    out = []
    for name in names:
        table = catalog.table(name)
        if table is not None:
            out.append(compact_table(table, (columns or {}).get(table.name)))
    return "\n".join(out)
