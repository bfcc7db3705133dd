"""Recall documents: one per table and one per column, built from a `Catalog`.

A document has a text for the embedding model (words of the name, comment, example values, the table
it belongs to) and the keyword terms of the same content for BM25 (the name's words count twice).
Its `hash` covers the text, so an unchanged document is never embedded again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.tokenize import split_identifier, tokens

MAX_VALUE_CHARS = 40
MAX_VALUES = 8
MAX_TABLE_COLUMNS = 40  # a table document names at most this many columns


@dataclass(frozen=True)
class Doc:
    id: str  # "t:orders" | "c:orders.customer_id"
    kind: str  # "table" | "column"
    table: str
    column: str | None
    text: str
    terms: tuple[str, ...]
    hash: str


def clean_value(value: object) -> str | None:
    """A sample value as short printable text; binary or control-character values are dropped."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return None
    text = str(value).strip()
    if not text or any(ord(ch) < 32 for ch in text):
        return None
    return text[:MAX_VALUE_CHARS]


def column_values(col: ColumnInfo, *, names: bool = False) -> list[str]:
    """Sampled values and enum labels of a column (labels are what people type: 已支付, 金卡); with `names`,
    then the rest of a mid-cardinality column's values (the value index's, never a document's)."""
    raw = list(col.enum.values()) + list(col.samples or []) + (list(col.names or []) if names else [])
    out: list[str] = []
    for v in raw:
        text = clean_value(v)
        if text and text not in out:
            out.append(text)
    return out


def _words(name: str) -> str:
    return " ".join(split_identifier(name)) or name


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def column_doc(table: TableInfo, col: ColumnInfo) -> Doc:
    values = column_values(col)[:MAX_VALUES]
    parts = [f"{_words(col.name)} of {_words(table.name)}"]
    if col.comment:
        parts.append(col.comment)
    if values:
        parts.append("e.g. " + ", ".join(values))
    if table.comment:
        parts.append(table.comment)
    text = ". ".join(parts)
    name_terms = tokens(col.name)
    terms = name_terms * 2 + tokens(table.name) + tokens(col.comment) + tokens(" ".join(values))
    terms += tokens(col.type or "")
    return Doc(f"c:{table.name}.{col.name}", "column", table.name, col.name, text, tuple(terms), _hash(text))


def table_doc(table: TableInfo) -> Doc:
    cols = [c.name for c in table.columns[:MAX_TABLE_COLUMNS]]
    parts = [_words(table.name)]
    if table.comment:
        parts.append(table.comment)
    parts.append("columns: " + ", ".join(_words(c) for c in cols))
    text = ". ".join(parts)
    terms = tokens(table.name) * 3 + tokens(table.comment) + tokens(" ".join(cols))
    return Doc(f"t:{table.name}", "table", table.name, None, text, tuple(terms), _hash(text))


def build_documents(catalog: Catalog) -> list[Doc]:
    docs: list[Doc] = []
    for table in catalog.tables:
        docs.append(table_doc(table))
        docs.extend(column_doc(table, col) for col in table.columns)
    return docs


def schema_hash(catalog: Catalog) -> str:
    """A fingerprint of everything recall reads from the catalog (cheap: no tokenizing)."""
    h = hashlib.sha1(catalog.datasource.encode())
    for table in catalog.tables:
        h.update(f"\x00{table.name}\x01{table.comment}".encode())
        for col in table.columns:
            h.update(f"\x02{col.name}\x03{col.type}\x03{col.comment}\x03{col.primary_key}\x03{col.foreign_key}"
                     f"\x03{sorted(col.enum.items())}\x03{column_values(col, names=True)}".encode())
        for fk in getattr(table, "foreign_keys", None) or []:
            h.update(f"\x04{fk.columns}{fk.ref_table}{fk.ref_columns}".encode())
    return h.hexdigest()
