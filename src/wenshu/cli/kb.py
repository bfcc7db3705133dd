"""`wenshu kb add|list|show|remove|reindex|search|summarize`: the document knowledge base (docs/kb.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from wenshu.cli.common import console, err_console, guarded, progress_bar, settings, ui_lang

app = typer.Typer(help="Knowledge base: documents the assistant answers from, with their sources.",
                  no_args_is_help=True)

COLLECTION = typer.Option("default", "--collection", "-c", help="The collection (a separate set of documents).")
AS_JSON = typer.Option(False, "--json", help="Print JSON.")


def open_kb():
    from wenshu.bootstrap import open_store
    from wenshu.kb.library import open_knowledge_base

    s = settings()
    return open_knowledge_base(s, open_store(s).engine)


def _results(results, as_json: bool, lang: str) -> None:
    if as_json:
        print(json.dumps([r.to_dict(lang) for r in results], ensure_ascii=False))
    else:
        table = Table("file", "result", "chunks", "seconds")
        for r in results:
            if r.error is not None:
                table.add_row(r.name, f"[red]{r.error.message(lang)}[/] [dim]({r.error.code})[/]", "", "")
            else:
                table.add_row(r.name, r.status, str(r.document.chunk_count), f"{r.seconds:.1f}")
        console.print(table)
    if any(r.error is not None for r in results):
        raise SystemExit(1)


@app.command("add")
def add(paths: list[Path] = typer.Argument(..., help="Files and folders (folders: every supported file in them)."),
        collection: str = COLLECTION, as_json: bool = AS_JSON,
        summarize_now: bool = typer.Option(False, "--summarize", help="Also summarise the new documents now "
                                           "(needs the chat model; else run `wenshu kb summarize` later).")) -> None:
    """Add documents: each is parsed, chunked and embedded, and searchable as soon as it is done. A file that
    cannot be added gets its own error and the rest go on (exit code 1 if any failed)."""
    lang = ui_lang()
    with guarded(lang, as_json):
        kb = open_kb()
        with progress_bar() as progress:
            results = kb.add(paths, collection, progress=progress)
        if summarize_now and any(r.status == "added" for r in results):
            _summarize(kb, collection, quiet=as_json)
        _results(results, as_json, lang)


@app.command("list")
def list_(collection: str = typer.Option(None, "--collection", "-c", help="Only this collection."),
          as_json: bool = AS_JSON) -> None:
    """List the documents with their status (parsing, chunking, embedding, summarizing, ready, error)."""
    with guarded(as_json=as_json):
        docs = open_kb().list(collection)
        if as_json:
            print(json.dumps([d.to_dict() for d in docs], ensure_ascii=False))
            return
        table = Table("id", "collection", "name", "status", "pages", "chunks", "title")
        for d in docs:
            status = d.status if d.status != "error" else f"[red]error[/] [dim]({d.error_code})[/]"
            table.add_row(d.id[:8], d.collection, d.name, status, str(d.pages or ""), str(d.chunk_count), d.title or "")
        console.print(table)


@app.command("show")
def show(ref: str = typer.Argument(..., help="A document id (or its first characters) or file name."),
         as_json: bool = AS_JSON) -> None:
    """Show a document: status, summary, and its sections."""
    with guarded(as_json=as_json):
        kb = open_kb()
        doc = kb.find(ref)
        chunks = kb.chunks(doc)
        if as_json:
            print(json.dumps({**doc.to_dict(), "chunks": [{"ordinal": c.ordinal, "heading": c.heading, "page": c.page,
                                                           "text": c.text} for c in chunks]}, ensure_ascii=False))
            return
        console.print(f"[bold]{doc.name}[/] ({doc.id}) · {doc.format} · {doc.size_bytes:,} bytes · {doc.status}"
                      + (f" · {doc.pages} pages" if doc.pages else ""), highlight=False)
        if doc.error_code:
            console.print(f"[red]{doc.error_message}[/] [dim]({doc.error_code})[/]", highlight=False)
        console.print(f"Title: {doc.title or ''}\nSummary: {doc.summary or '(not yet)'}", highlight=False)
        sections = list(dict.fromkeys((c.heading, c.page) for c in chunks))
        for heading, page in sections[:40]:
            console.print(f"  • {heading or '(no heading)'}" + (f" [dim]p. {page}[/]" if page else ""), highlight=False)


@app.command("remove")
def remove(ref: str = typer.Argument(..., help="A document id (or its first characters) or file name.")) -> None:
    """Remove a document: its rows, its vectors and its kept copy."""
    with guarded():
        doc = open_kb().remove(ref)
        console.print(f"Removed {doc.name} ({doc.id[:8]}).", highlight=False)


@app.command("reindex")
def reindex(collection: str = typer.Option(None, "--collection", "-c", help="Only this collection."),
            everything: bool = typer.Option(False, "--all", help="Redo every document, not only unfinished ones."),
            as_json: bool = AS_JSON) -> None:
    """Resume documents whose ingest did not finish (a crash, an error), and drop vectors no document owns."""
    lang = ui_lang()
    with guarded(lang, as_json):
        with progress_bar() as progress:
            results = open_kb().reindex(collection, everything=everything, progress=progress)
        if not results and not as_json:
            console.print("Nothing to resume.")
            return
        _results(results, as_json, lang)


@app.command("search")
def search(query: str = typer.Argument(...), k: int = typer.Option(5, "--k", help="Passages to show."),
           collection: str = COLLECTION, as_json: bool = AS_JSON) -> None:
    """Search the documents: the best passages with their document, section and page."""
    from wenshu.kb.errors import KbNothingFound

    lang = ui_lang(query)
    with guarded(lang, as_json):
        result = open_kb().search(query, collection, k)
        if as_json:
            print(json.dumps(result.to_dict(), ensure_ascii=False))
            return
        if not result.found:
            console.print(KbNothingFound().message(lang))
            return
        for n, p in enumerate(result.passages, 1):
            console.print(f"[bold]{n}. {p.document}[/]" + (f" · {p.where}" if p.where else "")
                          + f" [dim]({p.score:.3f})[/]", highlight=False)
            console.print(p.text, markup=False, highlight=False)
            console.print()


@app.command("summarize")
def summarize(collection: str = typer.Option(None, "--collection", "-c", help="Only this collection.")) -> None:
    """Summarise documents waiting for a summary, with the chat model (resumable: stop and run it again)."""
    with guarded():
        _summarize(open_kb(), collection)


def _summarize(kb, collection: str | None, quiet: bool = False) -> None:
    from wenshu.providers.registry import resolve

    models = resolve(settings())
    with progress_bar() as progress:
        done = kb.summarize(models, collection, progress=progress)
    if not quiet:
        for d in done:
            err_console.print(f"[bold]{d.name}[/]: {d.summary}", highlight=False)
