"""`wenshu db add|list|remove|sync|show`: datasources by any SQLAlchemy URL (a SQLite file path works too),
and their catalogs synced into the app store; `wenshu db migrate`: the app store's own schema."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from wenshu.cli.common import console, err_console, guarded, progress_bar, settings

app = typer.Typer(help="Manage datasources.", no_args_is_help=True)


def _store():
    from wenshu.bootstrap import ensure_demo, open_store

    s = settings()
    store = open_store(s)
    ensure_demo(s, store)
    return store


def _sync(store, name: str, *, full: bool = False, quiet: bool = False):
    from wenshu.knowledge.sync import sync_datasource

    if quiet:
        return sync_datasource(store, name, full=full)
    with progress_bar() as progress:
        return sync_datasource(store, name, full=full, progress=progress)


def _report_line(report) -> str:
    return (f"Synced [bold]{report.datasource}[/]: {report.tables} tables "
            f"({len(report.added)} added, {len(report.changed)} changed, {len(report.removed)} removed, "
            f"{len(report.unchanged)} unchanged) in {report.seconds:.2f} s.")


@app.command("add")
def add(name: str, url: str = typer.Argument(..., help="SQLAlchemy URL or a path to a SQLite file.")) -> None:
    """Register a datasource after checking that it can be reached, and sync its catalog."""
    from wenshu.engines.registry import check_engine
    from wenshu.errors import EmptyDatasource

    with guarded():
        store = _store()
        check_engine(url)  # an engine without an adapter or a driver is named before anything is stored
        record = store.datasources.add(name, url)
        try:
            report = _sync(store, name)
        except EmptyDatasource as err:  # registered all the same: tables may come later
            console.print(f"Added [bold]{name}[/] ({record.dialect}).")
            err_console.print(f"[yellow]{err.message()}[/] [dim]({err.code})[/]", soft_wrap=True)
            return
        except Exception:
            store.datasources.remove(name)
            raise
        console.print(f"Added [bold]{name}[/] ({record.dialect}): {report.tables} tables.")


@app.command("sync")
def sync(
    name: str,
    full: bool = typer.Option(False, "--full", help="Re-read every table, not only the changed ones."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Sync a datasource's catalog (tables, columns, keys, row counts, sample values) into the app store."""
    with guarded(as_json=as_json):
        report = _sync(_store(), name, full=full, quiet=as_json)
        if as_json:
            print(json.dumps(report.to_dict(), ensure_ascii=False))
            return
        console.print(_report_line(report))


@app.command("migrate")
def migrate() -> None:
    """Create or upgrade the app store's schema (WENSHU_DATABASE_URL; not a datasource) and print its revision.
    Every command does this when it opens the store; this one only does that (set-up scripts, containers)."""
    from wenshu.bootstrap import open_store
    from wenshu.storage.migrations import current_revision
    from wenshu.storage.store_health import shown

    with guarded():
        store = open_store(settings().model_copy(update={"redis_url": ""}))  # the store alone, not the shared Redis
        try:
            with store.engine.connect() as conn:
                revision = current_revision(conn)
            console.print(f"App store {shown(store.engine.url)}: schema at revision {revision}.", highlight=False)
        finally:
            store.close()


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")) -> None:
    """List datasources, with their number of tables and last sync time."""
    with guarded(as_json=as_json):
        store = _store()
        records = store.datasources.list()
        statuses = store.catalogs.statuses()
        if as_json:
            print(json.dumps([{"name": r.name, "url": r.url, "dialect": r.dialect,
                               "tables": statuses[r.name].table_count if r.name in statuses else None,
                               "synced_at": statuses[r.name].synced_at.isoformat() if r.name in statuses else None}
                              for r in records]))
            return
        table = Table("name", "dialect", "tables", "synced", "url")
        for r in records:
            st = statuses.get(r.name)
            synced = st.synced_at.astimezone().strftime("%Y-%m-%d %H:%M") if st else "never"
            table.add_row(r.name, r.dialect, str(st.table_count) if st else "-", synced, r.safe_url)
        console.print(table)


@app.command("remove")
def remove(name: str) -> None:
    """Remove a datasource and its synced catalog (the database itself is untouched)."""
    with guarded():
        _store().datasources.remove(name)
        console.print(f"Removed [bold]{name}[/].")


@app.command("show")
def show(
    name: str,
    table: str | None = typer.Argument(None, help="One table: its columns, keys and sample values."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Show a datasource's synced catalog (syncing it first if it never was)."""
    from wenshu.errors import NotFound
    from wenshu.knowledge.sync import current_catalog, table_summary

    with guarded(as_json=as_json):
        catalog = current_catalog(_store(), name)
        if table is None:
            if as_json:
                print(json.dumps({"datasource": name, "dialect": catalog.dialect, "tables": [
                    {"name": t.name, "kind": t.kind, "rows": t.row_count, "columns": len(t.columns),
                     "comment": t.comment} for t in catalog.tables]}, ensure_ascii=False))
                return
            _print_tables(catalog)
            return
        info = catalog.table(table)
        if info is None:
            raise NotFound(f"Datasource '{name}' has no table '{table}'.", f"数据源「{name}」中没有表「{table}」。")
        if as_json:
            print(json.dumps(table_summary(info), ensure_ascii=False))
            return
        _print_table(info)


def _print_tables(catalog) -> None:
    out = Table("table", "kind", "rows", "columns", "comment")
    for t in catalog.tables:
        out.add_row(t.name, t.kind, "-" if t.row_count is None else f"{t.row_count:,}", str(len(t.columns)), t.comment)
    console.print(out)


def _print_table(info) -> None:
    console.print(f"[bold]{info.name}[/] ({info.kind}, "
                  f"{'?' if info.row_count is None else f'{info.row_count:,}'} rows) {info.comment}")
    out = Table("column", "type", "key", "comment", "values")
    for c in info.columns:
        key = "PK" if c.primary_key else ""
        if c.foreign_key:
            key += (" " if key else "") + f"→ {c.foreign_key}" + (" (inferred)" if c.foreign_key_inferred else "")
        values = ", ".join(f"{k}={v}" for k, v in c.enum.items()) if c.enum else ", ".join(c.samples[:8])
        out.add_row(c.name, c.type, key, c.comment, values)
    console.print(out)
    for fk in info.foreign_keys:
        if fk.inferred:
            console.print(f"  inferred: ({', '.join(fk.columns)}) → {fk.ref_table}({', '.join(fk.ref_columns)}) "
                          f"confidence {fk.confidence:.2f}")
