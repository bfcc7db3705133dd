"""The synced catalog of each datasource: one `catalog_sources` row, one `catalog_tables` row per table.

    store.catalogs.save(catalog, hashes, data_version=None, seconds=0.4)  # -> {added, changed, ...}
    store.catalogs.load("shop")     # -> Catalog | None
    store.catalogs.status("shop")   # -> CatalogStatus | None

`save` writes a whole snapshot in one transaction: tables whose hash is new or different are
(re)written, tables that are gone are deleted, the rest only get their row count refreshed. A
failure anywhere leaves the previous snapshot exactly as it was. Removing a datasource removes
its catalog (foreign keys with ON DELETE CASCADE).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from wenshu.catalog import Catalog, TableInfo, schema_hash
from wenshu.errors import UnknownDatasource
from wenshu.storage.schema import catalog_sources as src
from wenshu.storage.schema import catalog_tables as tbl
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import datasources as ds


@dataclass(frozen=True)
class CatalogStatus:
    datasource: str
    dialect: str
    schema_hash: str
    data_version: str | None
    table_count: int
    seconds: float
    synced_at: datetime

    def to_dict(self) -> dict:
        return {"datasource": self.datasource, "dialect": self.dialect, "schema_hash": self.schema_hash,
                "tables": self.table_count, "seconds": self.seconds, "synced_at": self.synced_at.isoformat()}


# Built once: the answer cache reads the sync stamp on every first question.
_STATUS = sa.select(src).where(src.c.datasource == sa.bindparam("ds"))


def _status(row: sa.Row) -> CatalogStatus:
    return CatalogStatus(row.datasource, row.dialect, row.schema_hash, row.data_version,
                         row.table_count, row.seconds, row.synced_at)


class CatalogStore:
    def __init__(self, engine: Engine):
        self.engine = engine

    def status(self, datasource: str) -> CatalogStatus | None:
        with self.engine.connect() as conn:
            row = conn.execute(_STATUS, {"ds": datasource}).first()
        return None if row is None else _status(row)

    def statuses(self) -> dict[str, CatalogStatus]:
        with self.engine.connect() as conn:
            return {r.datasource: _status(r) for r in conn.execute(sa.select(src))}

    def table_hashes(self, datasource: str) -> dict[str, str]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(tbl.c.name, tbl.c.hash).where(tbl.c.datasource == datasource))
            return {name: h for name, h in rows}

    def load(self, datasource: str) -> Catalog | None:
        """The last synced snapshot, in catalog order; None when the datasource was never synced."""
        with self.engine.connect() as conn:
            head = conn.execute(sa.select(src).where(src.c.datasource == datasource)).first()
            if head is None:
                return None
            rows = conn.execute(sa.select(tbl.c.payload, tbl.c.row_count)
                                .where(tbl.c.datasource == datasource).order_by(tbl.c.position)).all()
        tables = []
        for payload, count in rows:
            table = TableInfo.from_dict(payload)
            table.row_count = count
            tables.append(table)
        return Catalog(datasource=datasource, dialect=head.dialect, tables=tables)

    def save(self, catalog: Catalog, hashes: dict[str, str], *, data_version: str | None = None,
             seconds: float = 0.0, rewrite: bool = False) -> dict[str, list[str]]:
        """Write `catalog` as the datasource's snapshot; returns the table names added/changed/removed/unchanged.

        `rewrite` rewrites every table's payload (a full re-sync), reporting existing ones as changed."""
        name, now = catalog.datasource, utcnow()
        head = {"dialect": catalog.dialect, "schema_hash": schema_hash(hashes), "data_version": data_version,
                "table_count": len(catalog.tables), "seconds": round(seconds, 3), "synced_at": now}
        try:
            with self.engine.begin() as conn:
                if conn.execute(sa.select(ds.c.name).where(ds.c.name == name)).first() is None:
                    raise UnknownDatasource(name, self._names(conn))
                before = {n: h for n, h in conn.execute(
                    sa.select(tbl.c.name, tbl.c.hash).where(tbl.c.datasource == name))}
                self._write_head(conn, name, head)
                diff = self._write_tables(conn, catalog, hashes, before, now, rewrite)
        except IntegrityError as exc:  # the datasource was removed while we were writing
            raise UnknownDatasource(name, self._names()) from exc
        return diff

    def remove(self, datasource: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(src.delete().where(src.c.datasource == datasource))

    def _names(self, conn: sa.Connection | None = None) -> list[str]:
        if conn is None:
            with self.engine.connect() as c:
                return self._names(c)
        return list(conn.execute(sa.select(ds.c.name).order_by(ds.c.name)).scalars())

    @staticmethod
    def _write_head(conn: sa.Connection, name: str, head: dict) -> None:
        if conn.execute(src.update().where(src.c.datasource == name).values(**head)).rowcount == 0:
            conn.execute(src.insert().values(datasource=name, **head))

    @staticmethod
    def _write_tables(conn, catalog: Catalog, hashes: dict[str, str], before: dict[str, str], now,
                      rewrite: bool) -> dict:
        name = catalog.datasource
        diff: dict[str, list[str]] = {"added": [], "changed": [], "removed": [], "unchanged": []}
        for position, table in enumerate(catalog.tables):
            key = (tbl.c.datasource == name) & (tbl.c.name == table.name)
            old = before.get(table.name)
            if old is not None and old == hashes[table.name] and not rewrite:
                diff["unchanged"].append(table.name)
                conn.execute(tbl.update().where(key).values(row_count=table.row_count, position=position))
                continue
            values = {"position": position, "hash": hashes[table.name], "row_count": table.row_count,
                      "synced_at": now, "payload": table.to_dict()}
            if old is None:
                diff["added"].append(table.name)
                conn.execute(tbl.insert().values(datasource=name, name=table.name, **values))
            else:
                diff["changed"].append(table.name)
                conn.execute(tbl.update().where(key).values(**values))
        gone = sorted(set(before) - {t.name for t in catalog.tables})
        if gone:
            conn.execute(tbl.delete().where((tbl.c.datasource == name) & tbl.c.name.in_(gone)))
        diff["removed"] = gone
        return diff
