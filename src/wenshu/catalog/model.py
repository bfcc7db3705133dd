"""The datasource catalog model: tables, columns, types, comments, enum annotations, keys and sample values.

Comments come from the database where it has them (PostgreSQL/MySQL `COMMENT`), or from a sidecar
pair of tables inside the datasource itself, for engines without comments (SQLite):

    _wenshu_tables(table_name TEXT PRIMARY KEY, comment TEXT)
    _wenshu_columns(table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT)

`enum_json` maps stored values to labels, e.g. {"0": "待支付", "1": "已支付"}.

This module is the data model, its JSON round-trip and the structural hash used by the catalog sync:
plain data, no I/O, importing nothing else of Wenshu (the guard, storage, SQL repair and knowledge all
build on it). Reading a live database lives in `wenshu.knowledge.introspect` (structure and
`load_catalog`), `samples` (row counts and sample values) and `inferred_keys` (foreign keys guessed
from names and values); the synced copy in the app store is kept by `wenshu.knowledge.sync`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields


@dataclass
class ForeignKeyInfo:
    """A foreign key; `inferred` ones were guessed from names and confirmed by value overlap."""

    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    inferred: bool = False
    confidence: float = 1.0


@dataclass
class ColumnInfo:
    name: str
    type: str
    comment: str = ""
    enum: dict[str, str] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)  # most frequent values first
    primary_key: bool = False
    foreign_key: str | None = None  # "table.column", declared or inferred
    foreign_key_inferred: bool = False
    low_cardinality: bool = False  # `samples` then holds every distinct value
    names: list[str] = field(default_factory=list)  # every value of a mid-cardinality column, for the value index only
    nullable: bool = True


@dataclass
class TableInfo:
    name: str
    comment: str = ""
    columns: list[ColumnInfo] = field(default_factory=list)
    row_count: int | None = None
    kind: str = "table"  # table | view
    foreign_keys: list[ForeignKeyInfo] = field(default_factory=list)
    sample_rows: list[list[str | None]] = field(default_factory=list)  # a few rows as text (schema layout "ddl")

    def column(self, name: str) -> ColumnInfo | None:
        low = name.lower()
        return next((c for c in self.columns if c.name.lower() == low), None)

    @property
    def primary_key(self) -> list[str]:
        return [c.name for c in self.columns if c.primary_key]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TableInfo:
        """The inverse of `to_dict`; unknown keys (from a newer Wenshu) are ignored."""
        known = _pick(cls, data)
        known["columns"] = [ColumnInfo(**_pick(ColumnInfo, c)) for c in data.get("columns", [])]
        known["foreign_keys"] = [ForeignKeyInfo(**_pick(ForeignKeyInfo, f)) for f in data.get("foreign_keys", [])]
        return cls(**known)


@dataclass
class Catalog:
    datasource: str
    dialect: str
    tables: list[TableInfo] = field(default_factory=list)

    def table(self, name: str) -> TableInfo | None:
        low = name.lower()
        return next((t for t in self.tables if t.name.lower() == low), None)

    def table_names(self) -> list[str]:
        return [t.name for t in self.tables]


def _pick(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


SAMPLING = 2  # what a sync reads of the data; a new value makes the next sync sample every table again (2: `names`)


def structural_hash(table: TableInfo, extra: list | None = None) -> str:
    """A hash of what a re-sync must notice: names, types, comments, enums, keys (not data), and the
    `SAMPLING` version a stored table was sampled with."""
    shape = {
        "sampling": SAMPLING,
        "name": table.name,
        "kind": table.kind,
        "comment": table.comment,
        "columns": [[c.name, c.type, c.comment, c.enum, c.primary_key, c.nullable] for c in table.columns],
        "fks": [[f.columns, f.ref_table, f.ref_columns] for f in table.foreign_keys if not f.inferred],
        "extra": extra or [],
    }
    text = json.dumps(shape, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def schema_hash(table_hashes: dict[str, str]) -> str:
    text = "\n".join(f"{name}\t{h}" for name, h in sorted(table_hashes.items()))
    return hashlib.sha256(text.encode()).hexdigest()
