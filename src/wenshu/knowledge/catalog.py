"""The datasource catalog: tables, columns, types, comments, enum annotations, keys and sample values.

Comments come from the database where it has them (PostgreSQL/MySQL `COMMENT`), or from a sidecar
pair of tables inside the datasource itself, for engines without comments (SQLite):

    _wenshu_tables(table_name TEXT PRIMARY KEY, comment TEXT)
    _wenshu_columns(table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT)

`enum_json` maps stored values to labels, e.g. {"0": "待支付", "1": "已支付"}.

This module is the data model (plus JSON round-trip and the structural hash used by the catalog
sync) and the live loader. Reading a database lives in `introspect` (structure), `samples` (row
counts and sample values) and `inferred_keys` (foreign keys guessed from names and values); the
synced copy in the app store is kept by `wenshu.knowledge.sync`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import sqlalchemy as sa

from wenshu.errors import DatasourceUnreachable


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
    nullable: bool = True


@dataclass
class TableInfo:
    name: str
    comment: str = ""
    columns: list[ColumnInfo] = field(default_factory=list)
    row_count: int | None = None
    kind: str = "table"  # table | view
    foreign_keys: list[ForeignKeyInfo] = field(default_factory=list)

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


def structural_hash(table: TableInfo, extra: list | None = None) -> str:
    """A hash of what a re-sync must notice: names, types, comments, enums, keys (not data)."""
    shape = {
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


def introspect(engine: sa.Engine, datasource: str, *, with_samples: bool = True) -> Catalog:
    """Read the whole catalog of a live datasource (no app store involved)."""
    from wenshu.knowledge.introspect import read_catalog

    return read_catalog(engine, datasource, with_samples=with_samples)


def datasource_engine(name: str, url: str) -> sa.Engine:
    """An engine for reading a datasource's catalog; a SQLite file is opened read-only and never created."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        path = Path(parsed.database).expanduser().resolve()
        if not path.is_file():
            raise DatasourceUnreachable(name, f"the SQLite file {path} does not exist")
        uri = f"{path.as_uri()}?mode=ro"
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False))
    return sa.create_engine(url, pool_pre_ping=True)


def unreachable(name: str, exc: BaseException) -> DatasourceUnreachable:
    """A database error as the user-facing `datasource_unreachable` error (first line of the cause)."""
    detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return DatasourceUnreachable(name, (detail[0] if detail else type(exc).__name__)[:200])


def load_catalog(name: str, url: str) -> Catalog:
    """Introspect a datasource by name and URL; connection problems become DatasourceUnreachable.

    This always reads the live database; the agent reads the synced copy instead
    (`wenshu.knowledge.sync.current_catalog`).
    """
    engine = datasource_engine(name, url)
    try:
        return introspect(engine, name)
    except sa.exc.SQLAlchemyError as exc:
        raise unreachable(name, exc) from exc
    finally:
        engine.dispose()
