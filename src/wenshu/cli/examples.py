"""`wenshu examples ...`: the few-shot library of question <-> SQL pairs per datasource.

Learned pairs arrive as `pending` and are served to the model only after `wenshu examples approve ID`.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded, settings

app = typer.Typer(help="Few-shot examples (question <-> SQL pairs) per datasource.", no_args_is_help=True)

DB_HELP = "Datasource name (default: the default datasource)."


def open_knowledge_store():
    """The app store, with the demo datasource and its bundled examples and glossary in place."""
    from wenshu.bootstrap import ensure_demo, open_store

    s = settings()
    store = open_store(s)
    ensure_demo(s, store)
    return store


def datasource_dialect(store, name: str | None) -> tuple[str, str | None]:
    """(datasource name, sqlglot dialect); an unknown name raises UnknownDatasource."""
    from wenshu.guard import sqlglot_dialect

    name = name or settings().default_datasource
    return name, sqlglot_dialect(store.datasources.get(name).dialect) or None


def _library(store):
    from wenshu.knowledge.examples import LibraryExamples

    return LibraryExamples(store.examples)


@app.command("list")
def list_(db: str | None = typer.Option(None, "--db", help=DB_HELP),
          status: str = typer.Option("all", "--status", help="active | pending | rejected | all"),
          as_json: bool = typer.Option(False, "--json")) -> None:
    """List examples (all datasources unless --db is given)."""
    with guarded(as_json=as_json):
        records = open_knowledge_store().examples.list(db, status=status)
        if as_json:
            print(json.dumps([r.to_dict() for r in records], ensure_ascii=False))
            return
        table = Table("id", "db", "status", "source", "type", "question", "sql")
        for r in records:
            table.add_row(str(r.id), r.datasource, r.status, r.source, r.query_type or "", r.question,
                          " ".join(r.sql.split())[:80])
        console.print(table)


@app.command("add")
def add(question: str = typer.Option(..., "--question", "-q"), sql: str = typer.Option(..., "--sql"),
        db: str | None = typer.Option(None, "--db", help=DB_HELP),
        query_type: str | None = typer.Option(None, "--type", help="detail | aggregate | trend | share | top_n | compare"),
        ) -> None:
    """Add an active example after checking that its SQL parses (duplicate questions are refused)."""
    with guarded():
        store = open_knowledge_store()
        name, dialect = datasource_dialect(store, db)
        record = _library(store).add(name, question, sql, query_type=query_type, dialect=dialect)
        console.print(f"Added example {record.id} to [bold]{name}[/].")


def _set_status(example_id: int, status: str, verb: str) -> None:
    with guarded():
        record = open_knowledge_store().examples.set_status(example_id, status)
        console.print(f"{verb} example {record.id}: {record.question}")


@app.command("approve")
def approve(example_id: int = typer.Argument(..., metavar="ID")) -> None:
    """Make an example active: it is served to the model from now on."""
    _set_status(example_id, "active", "Approved")


@app.command("reject")
def reject(example_id: int = typer.Argument(..., metavar="ID")) -> None:
    """Reject an example: it is never served, and the same question is not learned again."""
    _set_status(example_id, "rejected", "Rejected")


@app.command("remove")
def remove(example_id: int = typer.Argument(..., metavar="ID")) -> None:
    """Delete an example."""
    with guarded():
        open_knowledge_store().examples.remove(example_id)
        console.print(f"Removed example {example_id}.")


@app.command("import")
def import_(file: Path = typer.Argument(..., exists=True, dir_okay=False, readable=True),
            db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Import `examples: [{question, sql, query_type}]` from YAML; known questions are skipped."""
    with guarded():
        store = open_knowledge_store()
        name, dialect = datasource_dialect(store, db)
        added, skipped = _library(store).import_yaml(name, file.read_text(encoding="utf-8"), dialect=dialect)
        console.print(f"Imported {added} examples into [bold]{name}[/] ({skipped} already known).")


@app.command("export")
def export(file: Path | None = typer.Argument(None, help="Write here instead of standard output."),
           db: str | None = typer.Option(None, "--db", help=DB_HELP),
           status: str = typer.Option("active", "--status", help="active | pending | rejected | all")) -> None:
    """Export examples as YAML (the import format)."""
    with guarded():
        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        text = _library(store).export_yaml(name, status=status)
        if file is None:
            print(text, end="")
        else:
            file.write_text(text, encoding="utf-8")
            console.print(f"Wrote {file}.")
