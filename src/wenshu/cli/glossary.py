"""`wenshu glossary ...`: business terms (definition + SQL snippet) and topics (sets of tables) per datasource."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded
from wenshu.cli.examples import DB_HELP, datasource_dialect, open_knowledge_store
from wenshu.errors import NotFound

app = typer.Typer(help="Business glossary: terms and topics per datasource.", no_args_is_help=True)


def _glossary(store, name: str):
    from wenshu.knowledge.glossary import GlossaryLibrary

    return GlossaryLibrary(store.glossary).for_datasource(name)


@app.command("list")
def list_(db: str | None = typer.Option(None, "--db", help=DB_HELP),
          as_json: bool = typer.Option(False, "--json")) -> None:
    """List the terms and topics of a datasource."""
    with guarded(as_json=as_json):
        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        records = store.glossary.list(name)
        if as_json:
            print(json.dumps([r.to_dict() for r in records], ensure_ascii=False))
            return
        table = Table("term", "kind", "synonyms", "definition", "sql / tables")
        for r in records:
            table.add_row(r.term, r.kind, ", ".join(r.synonyms), r.definition[:60],
                          r.sql or ", ".join(r.tables))
        console.print(table)


@app.command("show")
def show(term: str, db: str | None = typer.Option(None, "--db", help=DB_HELP),
         as_json: bool = typer.Option(False, "--json")) -> None:
    """Show one term, found by its name or a synonym."""
    with guarded(as_json=as_json):
        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        found = _glossary(store, name).get(term)
        if found is None:
            raise NotFound(f"Datasource '{name}' has no glossary term '{term}'.",
                           f"数据源「{name}」的术语表中没有「{term}」。", code="glossary_term_not_found")
        if as_json:
            print(json.dumps(found.to_dict(), ensure_ascii=False))
            return
        console.print(f"[bold]{found.term}[/] ({found.kind})", highlight=False)
        for label, value in (("synonyms", ", ".join(found.synonyms)), ("definition", found.definition),
                             ("sql", found.sql or ""), ("tables", ", ".join(found.tables))):
            if value:
                console.print(f"  {label}: {value}", highlight=False, soft_wrap=True)


@app.command("add")
def add(term: str, definition: str = typer.Option(..., "--definition", "-d"),
        sql: str | None = typer.Option(None, "--sql", help="SQL snippet, e.g. regions.region_name = '华东'."),
        synonyms: list[str] = typer.Option([], "--synonym", "-s", help="Another name (repeatable)."),
        tables: list[str] = typer.Option([], "--table", "-t", help="A table of the topic (repeatable)."),
        topic: bool = typer.Option(False, "--topic", help="A topic (a set of tables), not a term."),
        db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Add a term (or, with --topic, a topic); an existing name is refused."""
    with guarded():
        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        record = store.glossary.add(name, term, definition, kind="topic" if topic else "term", sql=sql,
                                    synonyms=synonyms, tables=tables)
        console.print(f"Added {record.kind} [bold]{record.term}[/] to {name}.")


@app.command("remove")
def remove(term: str, db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Remove a term or topic by its name."""
    with guarded():
        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        store.glossary.remove(name, term)
        console.print(f"Removed [bold]{term}[/] from {name}.")


@app.command("import")
def import_(file: Path = typer.Argument(..., exists=True, dir_okay=False, readable=True),
            db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Import `glossary: [{term, kind, definition, sql, synonyms, tables}]`; existing names are replaced."""
    with guarded():
        from wenshu.knowledge.glossary import import_terms, parse_yaml

        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        added, updated = import_terms(store.glossary, name, parse_yaml(file.read_text(encoding="utf-8")))
        console.print(f"Imported into [bold]{name}[/]: {added} added, {updated} updated.")


@app.command("export")
def export(file: Path | None = typer.Argument(None, help="Write here instead of standard output."),
           db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Export the glossary as YAML (the import format)."""
    with guarded():
        from wenshu.knowledge.glossary import dump_yaml

        store = open_knowledge_store()
        name, _ = datasource_dialect(store, db)
        text = dump_yaml(_glossary(store, name).terms)
        if file is None:
            print(text, end="")
        else:
            file.write_text(text, encoding="utf-8")
            console.print(f"Wrote {file}.")
