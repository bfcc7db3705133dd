"""Catalog sync: read a datasource's catalog and keep a snapshot of it in the app store.

    report = sync_datasource(store, "shop", progress=cb)   # cb(stage, done, total) once per table
    report.to_dict()  # {"added": 2, "changed": 1, "removed": 0, "unchanged": 40, "seconds": 0.8, ...}

How a sync works:
1. The structure (tables, views, columns, types, comments, keys) is read from the system catalog,
   which is cheap. Name-based foreign-key candidates are derived from it (`inferred_keys`).
2. Each table gets a structural hash (`catalog.structural_hash`, candidates included). A table
   whose hash is unchanged since the last sync keeps its stored samples and inferred keys and
   only has its row count refreshed; new or changed tables are sampled and their inferred keys
   checked against the data. `full=True` re-samples everything.
3. The new snapshot is written in one transaction (`storage.catalog_store`): if the datasource
   fails midway (`datasource_unreachable`) or anything else goes wrong, the previous snapshot is
   left exactly as it was.

`current_catalog(store, name)` is what the agent reads: the stored snapshot while it is current
(for a SQLite file: the file has not changed since the sync; other engines: until the next sync),
otherwise it syncs first.

Daily re-sync: a server calls `resync_all(store, max_age_s=86400)` periodically (e.g. hourly);
it re-syncs every datasource whose snapshot is missing or older than `max_age_s` and returns one
result per datasource (a report, or an error payload), one failing datasource never stopping
the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa

from wenshu.catalog import Catalog, TableInfo, structural_hash
from wenshu.engines.registry import adapter_for_url
from wenshu.errors import EmptyDatasource, error_payload
from wenshu.knowledge.inferred_keys import apply_inferred, name_candidates
from wenshu.knowledge.introspect import datasource_engine, read_connection, read_structure, unreachable
from wenshu.knowledge.samples import fill_data, row_count
from wenshu.storage.columns import utcnow

Progress = Callable[[str, int, int], None]
DAY_S = 86_400


@dataclass
class SyncReport:
    datasource: str
    tables: int
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    catalog: Catalog | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        return {"datasource": self.datasource, "tables": self.tables, "added": len(self.added),
                "changed": len(self.changed), "removed": len(self.removed), "unchanged": len(self.unchanged),
                "seconds": self.seconds,
                "details": {"added": self.added, "changed": self.changed, "removed": self.removed}}


def source_version(url: str) -> str | None:
    """The engine's own version token for the data (a SQLite file's changes whenever the file does);
    None for engines that cannot tell (server engines: the snapshot stays current until the next sync)."""
    return adapter_for_url(url).data_version(url)


def _read(engine: sa.Engine, name: str, previous: Catalog | None, old_hashes: dict[str, str],
          progress: Progress | None) -> tuple[Catalog, dict[str, str]]:
    catalog = Catalog(datasource=name, dialect=engine.dialect.name)
    stage = f"sync {name}"
    with read_connection(engine) as conn:
        structure = read_structure(conn)
        if not structure:
            raise EmptyDatasource(name)
        candidates = name_candidates(structure)
        hashes = {t.name: structural_hash(t, candidates.get(t.name)) for t in structure}
        by_name = {t.name: t for t in structure}
        kept_tables = {t.name: t for t in previous.tables} if previous is not None else {}
        for i, table in enumerate(structure):
            kept = kept_tables.get(table.name)
            if kept is not None and old_hashes.get(table.name) == hashes[table.name]:
                kept.row_count = row_count(conn, kept) if kept.kind == "table" else None
                table = kept
            else:
                fill_data(conn, table)
                apply_inferred(conn, table, candidates.get(table.name, []), by_name)
            catalog.tables.append(table)
            if progress is not None:
                progress(stage, i + 1, len(structure))
    return catalog, hashes


def sync_datasource(store, name: str, *, progress: Progress | None = None, full: bool = False) -> SyncReport:
    """Sync one registered datasource into the app store (see the module docstring)."""
    record = store.datasources.get(name)  # UnknownDatasource for a name that is not registered
    t0 = time.perf_counter()
    engine = datasource_engine(name, record.url)  # a clear error for a missing SQLite file
    previous = None if full else store.catalogs.load(name)
    old_hashes = {} if full else store.catalogs.table_hashes(name)
    try:
        version = source_version(record.url)  # before reading: a change during the sync shows next time
        catalog, hashes = _read(engine, name, previous, old_hashes, progress)
    except sa.exc.SQLAlchemyError as exc:
        raise unreachable(name, exc) from exc
    finally:
        engine.dispose()
    seconds = round(time.perf_counter() - t0, 3)
    diff = store.catalogs.save(catalog, hashes, data_version=version, seconds=seconds, rewrite=full)
    return SyncReport(datasource=name, tables=len(catalog.tables), seconds=seconds, catalog=catalog, **diff)


def is_current(store, name: str, url: str) -> bool:
    status = store.catalogs.status(name)
    return status is not None and status.data_version == source_version(url)


def current_catalog(store, name: str, url: str | None = None) -> Catalog:
    """The synced catalog of `name`, syncing first when there is none or the SQLite file changed."""
    url = url or store.datasources.get(name).url
    if is_current(store, name, url):
        catalog = store.catalogs.load(name)
        if catalog is not None:
            return catalog
    return sync_datasource(store, name).catalog


def resync_all(store, max_age_s: float = DAY_S, progress: Progress | None = None) -> dict[str, dict]:
    """Re-sync every datasource whose snapshot is missing or older than `max_age_s` seconds."""
    statuses = store.catalogs.statuses()
    now = utcnow()
    out: dict[str, dict] = {}
    for record in store.datasources.list():
        status = statuses.get(record.name)
        if status is not None and (now - status.synced_at).total_seconds() < max_age_s:
            continue
        try:
            out[record.name] = sync_datasource(store, record.name, progress=progress).to_dict()
        except Exception as err:  # noqa: BLE001 - one broken datasource must not stop the others
            out[record.name] = error_payload(err)
    return out


def table_summary(table: TableInfo) -> dict:
    """One table of a synced catalog as plain JSON (for `wenshu db show` and the API)."""
    return table.to_dict() | {"primary_key": table.primary_key}
