"""`wenshu semantic show|draft|validate|import|export NAME`: a datasource's semantic model (docs/semantic.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded
from wenshu.cli.examples import open_knowledge_store

app = typer.Typer(help="Semantic models: measures, ratios, dimensions and relationships per datasource.",
                  no_args_is_help=True)


def _catalog(store, name: str):
    from wenshu.knowledge.sync import current_catalog

    return current_catalog(store, name, store.datasources.get(name).url)


def _read(path: Path) -> str:
    from wenshu.errors import InputError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"Cannot read {path}: {exc}", f"无法读取 {path}：{exc}", code="file_unreadable") from exc


@app.command("show")
def show(name: str, version: int = typer.Option(None, "--version", help="A stored version (default: latest)."),
         versions: bool = typer.Option(False, "--versions", help="List the stored versions."),
         as_json: bool = typer.Option(False, "--json")) -> None:
    """Show the model in force: measures, ratios, dimensions and relationships."""
    with guarded(as_json=as_json):
        from wenshu.semantic.model import parse_model

        store = open_knowledge_store()
        store.datasources.get(name)  # an unknown datasource: one clear error
        if versions:
            rows = [v.summary() for v in store.semantic.versions(name)]
            if as_json:
                print(json.dumps(rows, ensure_ascii=False))
                return
            table = Table("version", "source", "saved at", title=f"Semantic model versions of {name}")
            for r in rows:
                table.add_row(str(r["version"]), r["source"], r["created_at"] or "")
            console.print(table)
            return
        found = store.semantic.require(name, version)
        model = parse_model(found.body)
        if as_json:
            print(json.dumps({"version": found.version, "source": found.source,
                              "model": model.model_dump(mode="json", by_alias=True)}, ensure_ascii=False))
            return
        console.print(f"[bold]{name}[/] semantic model, version {found.version} ({found.source})", highlight=False)
        table = Table("measure", "名称 / name", "computation", "time", title="Measures and ratios")
        for m in model.measures:
            calc = f"{m.agg}({m.expr or '*'}) on {m.table}" + (f" where {m.filter}" if m.filter else "")
            table.add_row(m.id, f"{m.zh} / {m.en}", calc, m.time or "")
        for r in model.ratios:
            table.add_row(r.id, f"{r.zh} / {r.en}", f"{r.numerator} / {r.denominator}" + (
                f" × {r.scale:g}" if r.scale != 1 else ""), "")
        console.print(table)
        dims = Table("dimension", "名称 / name", "column", "labels or grains", title="Dimensions")
        for d in model.dimensions:
            extra = ", ".join(d.grains) if d.kind == "time" else ", ".join(f"{k}={v}" for k, v in d.labels.items())
            dims.add_row(d.id, f"{d.zh} / {d.en}", f"{d.table}.{d.column}", extra)
        console.print(dims)
        rels = Table("from", "to", "cardinality", title="Relationships")
        for r in model.relationships:
            rels.add_row(r.from_, r.to, r.cardinality)
        console.print(rels)


@app.command("draft")
def draft(name: str, out: Path = typer.Option(None, "--out", "-o", help="Write the YAML here (default: print it)."),
          save: bool = typer.Option(False, "--save", help="Also store it as a new version (source: draft).")) -> None:
    """Propose a model from the synced catalog, for a person to review and import."""
    with guarded():
        from wenshu.semantic.draft import draft_model

        store = open_knowledge_store()
        catalog = _catalog(store, name)
        text = draft_model(catalog).to_yaml()
        if save:
            from wenshu.semantic.library import import_model

            version, _ = import_model(store, catalog, text, source="draft")
            console.print(f"[green]Stored as version {version}[/] (review it: wenshu semantic export {name})")
        if out:
            out.write_text(text, encoding="utf-8")
            console.print(f"[green]Draft written to {out}[/]")
        elif not save:
            print(text, end="")


@app.command("validate")
def validate(name: str, path: Path = typer.Argument(None, help="A YAML file (default: the stored model)."),
             as_json: bool = typer.Option(False, "--json")) -> None:
    """Check a model against the datasource's catalog; every problem names its entry. Exit 1 when any."""
    with guarded(as_json=as_json):
        from wenshu.semantic.model import InvalidSemanticModel, parse_model
        from wenshu.semantic.validate import check

        store = open_knowledge_store()
        catalog = _catalog(store, name)
        text = _read(path) if path else store.semantic.require(name).body
        try:
            problems = [str(p) for p in check(parse_model(text), catalog, catalog.dialect)]
        except InvalidSemanticModel as exc:
            problems = exc.problems
        if as_json:
            print(json.dumps({"valid": not problems, "problems": problems}, ensure_ascii=False))
        elif problems:
            console.print(f"[red]{len(problems)} problem(s):[/]")
            for p in problems:
                console.print(f"  - {p}", highlight=False, soft_wrap=True)
        else:
            console.print("[green]valid[/]")
        if problems:
            raise SystemExit(1)


@app.command("import")
def import_(name: str, path: Path) -> None:
    """Check a YAML model and store it as the datasource's next version (nothing invalid is stored)."""
    with guarded():
        from wenshu.semantic.library import import_model

        store = open_knowledge_store()
        version, model = import_model(store, _catalog(store, name), _read(path))
        console.print(f"[green]Stored version {version}[/]: {len(model.measures)} measures, {len(model.ratios)} "
                      f"ratios, {len(model.dimensions)} dimensions, {len(model.relationships)} relationships")


@app.command("export")
def export(name: str, version: int = typer.Option(None, "--version"),
           out: Path = typer.Option(None, "--out", "-o", help="Write the YAML here (default: print it).")) -> None:
    """Print (or write) the stored model as YAML, exactly as it was imported."""
    with guarded():
        from wenshu.semantic.library import export_text

        text = export_text(open_knowledge_store(), name, version)
        if out:
            out.write_text(text, encoding="utf-8")
            console.print(f"[green]Written to {out}[/]")
        else:
            print(text, end="" if text.endswith("\n") else "\n")


@app.command("compile")
def compile_(name: str, plan: str = typer.Argument(..., help="A query plan as JSON (see wenshu.semantic.plan)."),
             run: bool = typer.Option(False, "--run", help="Also run it read-only and print the rows."),
             lang: str = typer.Option("zh", "--lang", help="Column names in zh or en.")) -> None:
    """Compile a query plan to the datasource's SQL dialect with its semantic model (and run it)."""
    with guarded():
        from pydantic import ValidationError

        from wenshu.errors import InputError
        from wenshu.semantic.compile import compile_plan
        from wenshu.semantic.model import parse_model
        from wenshu.semantic.plan import QueryPlan

        store = open_knowledge_store()
        record = store.datasources.get(name)
        model = parse_model(store.semantic.require(name).body)
        try:
            parsed = QueryPlan.model_validate_json(plan)
        except ValidationError as exc:
            raise InputError(f"The plan is not valid: {exc.errors()[0]['msg']} at "
                             f"{'.'.join(str(p) for p in exc.errors()[0]['loc'])}",
                             "查询计划无效：" + exc.errors()[0]["msg"], code="plan_invalid") from exc
        compiled = compile_plan(model, parsed, record.dialect, lang)
        print(compiled.sql)
        if run:  # through all four layers of the guard, like `wenshu sql run`
            from wenshu.cli.common import settings
            from wenshu.cli.render import result_table
            from wenshu.agent.sql_service import run_checked

            out = run_checked(settings(), store, compiled.sql, name)
            if out.error:
                raise InputError(out.error.message, out.error.message, code=out.error.code)
            console.print(result_table(out.columns, out.rows))
