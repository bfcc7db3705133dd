"""`wenshu db add|list|remove`: datasources by any SQLAlchemy URL (a SQLite file path works too)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded, settings

app = typer.Typer(help="Manage datasources.", no_args_is_help=True)


def _store():
    from wenshu.bootstrap import ensure_demo, open_store

    s = settings()
    store = open_store(s)
    ensure_demo(s, store)
    return store


@app.command("add")
def add(name: str, url: str = typer.Argument(..., help="SQLAlchemy URL or a path to a SQLite file.")) -> None:
    """Register a datasource after checking that it can be reached."""
    with guarded():
        from wenshu.knowledge.catalog import load_catalog

        store = _store()
        record = store.datasources.add(name, url)
        try:
            catalog = load_catalog(name, record.url)
        except Exception:
            store.datasources.remove(name)
            raise
        console.print(f"Added [bold]{name}[/] ({record.dialect}): {len(catalog.tables)} tables.")


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")) -> None:
    """List datasources."""
    with guarded(as_json=as_json):
        records = _store().datasources.list()
        if as_json:
            print(json.dumps([{"name": r.name, "url": r.url, "dialect": r.dialect} for r in records]))
            return
        table = Table("name", "dialect", "url")
        for r in records:
            table.add_row(r.name, r.dialect, r.url)
        console.print(table)


@app.command("remove")
def remove(name: str) -> None:
    """Remove a datasource (the database itself is untouched)."""
    with guarded():
        _store().datasources.remove(name)
        console.print(f"Removed [bold]{name}[/].")
