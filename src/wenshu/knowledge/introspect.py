"""Read a datasource's structure through SQLAlchemy's inspector: tables and views, columns, types,
comments (native, or the SQLite sidecar tables), primary keys and declared foreign keys.

`read_structure` touches only the system catalog, so it is cheap even for thousands of tables;
row counts, sample values and inferred keys are added by `samples` and `inferred_keys`.
`read_catalog` does all of it at once, for callers that do not keep a synced copy; `load_catalog`
opens a datasource by name and URL and reads it that way.
"""

from __future__ import annotations

import json

import sqlalchemy as sa

from wenshu.catalog import Catalog, ColumnInfo, ForeignKeyInfo, TableInfo
from wenshu.engines.registry import adapter_for_url, require
from wenshu.errors import DatasourceUnreachable

SIDECAR_TABLES = ("_wenshu_tables", "_wenshu_columns")
HIDDEN_PREFIXES = ("_wenshu_", "sqlite_")


def read_connection(engine: sa.Engine) -> sa.Connection:
    """A connection on which one failed probe does not abort the ones after it (autocommit where the
    engine has it; the adapter says how)."""
    return require(engine.dialect.name).catalog_connection(engine)


def _sidecar(conn: sa.Connection, names: set[str]) -> tuple[dict, dict]:
    tables: dict[str, str] = {}
    columns: dict[tuple[str, str], tuple[str, dict]] = {}
    if not set(SIDECAR_TABLES) <= names:
        return tables, columns
    for tname, comment in conn.execute(sa.text("SELECT table_name, comment FROM _wenshu_tables")):
        tables[tname] = comment or ""
    rows = conn.execute(sa.text("SELECT table_name, column_name, comment, enum_json FROM _wenshu_columns"))
    for tname, cname, comment, enum_json in rows:
        try:
            enum = json.loads(enum_json) if enum_json else {}
        except ValueError:
            enum = {}
        enum = enum if isinstance(enum, dict) else {}
        columns[(tname, cname)] = (comment or "", {str(k): str(v) for k, v in enum.items()})
    return tables, columns


def _table_comment(insp, table: str) -> str:
    try:
        return (insp.get_table_comment(table) or {}).get("text") or ""
    except (NotImplementedError, sa.exc.SQLAlchemyError):  # SQLite has no comments
        return ""


def _declared_fks(insp, table: str) -> list[ForeignKeyInfo]:
    out = []
    for fk in insp.get_foreign_keys(table):
        if fk.get("referred_table") and fk.get("constrained_columns"):
            out.append(ForeignKeyInfo(list(fk["constrained_columns"]), fk["referred_table"],
                                      list(fk.get("referred_columns") or [])))
    return out


def _read_table(insp, name: str, kind: str) -> TableInfo:
    pk = set() if kind == "view" else set(insp.get_pk_constraint(name).get("constrained_columns") or [])
    fks = [] if kind == "view" else _declared_fks(insp, name)
    single = {f.columns[0]: f"{f.ref_table}.{f.ref_columns[0]}" for f in fks if len(f.columns) == 1 and f.ref_columns}
    table = TableInfo(name=name, comment=_table_comment(insp, name), kind=kind, foreign_keys=fks)
    for col in insp.get_columns(name):
        table.columns.append(ColumnInfo(
            name=col["name"], type=_type_name(col["type"]), comment=col.get("comment") or "",
            primary_key=col["name"] in pk, foreign_key=single.get(col["name"]),
            nullable=bool(col.get("nullable", True)),
        ))  # fmt: skip
    return table


def _type_name(type_) -> str:
    try:
        return str(type_)
    except Exception:  # some dialect types cannot render without a dialect
        return type(type_).__name__.upper()


def inspected(conn: sa.Connection) -> list[TableInfo]:
    """Every table and view of the default schema, through SQLAlchemy's inspector."""
    insp = sa.inspect(conn)
    names = set(insp.get_table_names())
    try:
        views = set(insp.get_view_names()) - names
    except NotImplementedError:
        views = set()
    kinds = {n: "table" for n in names} | {v: "view" for v in views}
    return [_read_table(insp, name, kinds[name]) for name in sorted(kinds)]


def read_structure(conn: sa.Connection) -> list[TableInfo]:
    """Every visible table and view of the default schema, sorted by name, without data: from the
    engine's own catalog where its adapter reads it, else SQLAlchemy's inspector; comments and enum
    labels from the sidecar tables win over native comments."""
    tables = require(conn.dialect.name).read_tables(conn)
    tables = inspected(conn) if tables is None else tables
    side_tables, side_columns = _sidecar(conn, {t.name for t in tables})
    out = []
    for table in sorted(tables, key=lambda t: t.name):
        if table.name.startswith(HIDDEN_PREFIXES):
            continue
        table.comment = side_tables.get(table.name) or table.comment
        for col in table.columns:
            col.comment, col.enum = side_columns.get((table.name, col.name), (col.comment, col.enum))
        out.append(table)
    return out


def read_catalog(engine: sa.Engine, datasource: str, *, with_samples: bool = True) -> Catalog:
    """The full catalog of a live datasource: structure, row counts, samples and inferred keys."""
    from wenshu.knowledge.inferred_keys import apply_inferred, name_candidates
    from wenshu.knowledge.samples import fill_data

    catalog = Catalog(datasource=datasource, dialect=engine.dialect.name)
    with read_connection(engine) as conn:
        catalog.tables = read_structure(conn)
        candidates = name_candidates(catalog.tables)
        by_name = {t.name: t for t in catalog.tables}
        for table in catalog.tables:
            fill_data(conn, table, with_samples=with_samples)
            apply_inferred(conn, table, candidates.get(table.name, []), by_name)
    return catalog


def datasource_engine(name: str, url: str) -> sa.Engine:
    """An engine for reading a datasource's catalog, from its adapter (a SQLite file is opened read-only
    and never created; a missing driver is named with the package to install)."""
    return adapter_for_url(url).catalog_engine(name, url)


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
        return read_catalog(engine, name)
    except sa.exc.SQLAlchemyError as exc:
        raise unreachable(name, exc) from exc
    finally:
        engine.dispose()
