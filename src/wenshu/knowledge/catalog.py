"""The datasource catalog: tables, columns, types, comments, enum annotations, keys and sample values.

Comments come from the database where it has them (PostgreSQL/MySQL `COMMENT`), or from a sidecar
pair of tables inside the datasource itself, for engines without comments (SQLite):

    _wenshu_tables(table_name TEXT PRIMARY KEY, comment TEXT)
    _wenshu_columns(table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT)

`enum_json` maps stored values to labels, e.g. {"0": "待支付", "1": "已支付"}.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from wenshu.errors import DatasourceUnreachable

SIDECAR_TABLES = ("_wenshu_tables", "_wenshu_columns")
SAMPLE_LIMIT = 5
SAMPLE_SCAN = 20_000
LOW_CARDINALITY = 50
SAMPLE_MAX_LEN = 40


@dataclass
class ColumnInfo:
    name: str
    type: str
    comment: str = ""
    enum: dict[str, str] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)
    primary_key: bool = False
    foreign_key: str | None = None  # "table.column"


@dataclass
class TableInfo:
    name: str
    comment: str = ""
    columns: list[ColumnInfo] = field(default_factory=list)
    row_count: int | None = None

    def column(self, name: str) -> ColumnInfo | None:
        low = name.lower()
        return next((c for c in self.columns if c.name.lower() == low), None)


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


def _sidecar(conn: sa.Connection, names: set[str]) -> tuple[dict, dict]:
    tables: dict[str, str] = {}
    columns: dict[tuple[str, str], tuple[str, dict]] = {}
    if not set(SIDECAR_TABLES) <= names:
        return tables, columns
    for tname, comment in conn.execute(sa.text("SELECT table_name, comment FROM _wenshu_tables")):
        tables[tname] = comment or ""
    rows = conn.execute(sa.text("SELECT table_name, column_name, comment, enum_json FROM _wenshu_columns"))
    for tname, cname, comment, enum_json in rows:
        enum = json.loads(enum_json) if enum_json else {}
        columns[(tname, cname)] = (comment or "", {str(k): str(v) for k, v in enum.items()})
    return tables, columns


def _samples(conn: sa.Connection, table: str, column: str, preparer) -> list[str]:
    """The most frequent values of a low-cardinality column; two examples of a high-cardinality one."""
    q = preparer.quote
    sql = (
        f"SELECT v, COUNT(*) AS n FROM (SELECT {q(column)} AS v FROM {q(table)} WHERE {q(column)} IS NOT NULL "
        f"LIMIT {SAMPLE_SCAN}) s GROUP BY v ORDER BY n DESC, v LIMIT {LOW_CARDINALITY + 1}"
    )
    try:
        values = [r[0] for r in conn.execute(sa.text(sql))]
    except sa.exc.SQLAlchemyError:
        return []
    keep = SAMPLE_LIMIT if len(values) <= LOW_CARDINALITY else 2
    out = []
    for v in values[:keep]:
        s = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
        out.append(s[:SAMPLE_MAX_LEN])
    return out


def introspect(engine: sa.Engine, datasource: str, *, with_samples: bool = True) -> Catalog:
    """Read the catalog of a live datasource through SQLAlchemy's inspector."""
    insp = sa.inspect(engine)
    catalog = Catalog(datasource=datasource, dialect=engine.dialect.name)
    preparer = engine.dialect.identifier_preparer
    with engine.connect() as conn:
        names = set(insp.get_table_names())
        side_tables, side_columns = _sidecar(conn, names)
        for tname in sorted(n for n in names if not n.startswith(("_wenshu_", "sqlite_"))):
            comment = side_tables.get(tname) or _table_comment(insp, tname)
            pk = set(insp.get_pk_constraint(tname).get("constrained_columns") or [])
            fks = {}
            for fk in insp.get_foreign_keys(tname):
                for local, remote in zip(fk["constrained_columns"], fk["referred_columns"]):
                    fks[local] = f"{fk['referred_table']}.{remote}"
            table = TableInfo(name=tname, comment=comment)
            for col in insp.get_columns(tname):
                ccomment, enum = side_columns.get((tname, col["name"]), (col.get("comment") or "", {}))
                info = ColumnInfo(
                    name=col["name"],
                    type=str(col["type"]),
                    comment=ccomment,
                    enum=enum,
                    primary_key=col["name"] in pk,
                    foreign_key=fks.get(col["name"]),
                )
                if with_samples and not enum and _is_text(info.type):
                    info.samples = _samples(conn, tname, col["name"], preparer)
                table.columns.append(info)
            try:
                table.row_count = conn.execute(sa.text(f"SELECT COUNT(*) FROM {preparer.quote(tname)}")).scalar()
            except sa.exc.SQLAlchemyError:
                table.row_count = None
            catalog.tables.append(table)
    return catalog


def _table_comment(insp, table: str) -> str:
    try:
        return (insp.get_table_comment(table) or {}).get("text") or ""
    except NotImplementedError:  # SQLite has no comments
        return ""


def _is_text(type_name: str) -> bool:
    t = type_name.upper()
    return any(k in t for k in ("CHAR", "TEXT", "CLOB", "STRING", "VARCHAR")) or t == ""


def datasource_engine(name: str, url: str) -> sa.Engine:
    """An engine for reading a datasource's catalog; a SQLite file is opened read-only and never created."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        path = Path(parsed.database)
        if not path.is_file():
            raise DatasourceUnreachable(name, f"the SQLite file {path} does not exist")
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(f"file:{path}?mode=ro", uri=True))
    return sa.create_engine(url, pool_pre_ping=True)


def load_catalog(name: str, url: str) -> Catalog:
    """Introspect a datasource by name and URL; connection problems become DatasourceUnreachable."""
    engine = datasource_engine(name, url)
    try:
        return introspect(engine, name)
    except sa.exc.SQLAlchemyError as exc:
        detail = str(getattr(exc, "orig", None) or exc).splitlines()[0][:200]
        raise DatasourceUnreachable(name, detail) from exc
    finally:
        engine.dispose()
