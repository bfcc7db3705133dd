"""`wenshu skills list|show|add`: the skills the assistant can use (built-in, WENSHU_HOME/skills, ./skills)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded, settings

app = typer.Typer(help="Skills: folders with a SKILL.md the assistant follows when a request fits.", no_args_is_help=True)


def library():
    from wenshu.skills.library import SkillLibrary

    return SkillLibrary(settings().skills_dir, project_dir=Path.cwd() / "skills")


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")) -> None:
    """List the skills; a broken one is listed with its error and not loaded."""
    with guarded(as_json=as_json):
        skills = library().all()
        if as_json:
            print(json.dumps([{"name": s.name, "source": s.source, "description": s.description, "path": str(s.path),
                               "error": s.error} for s in skills], ensure_ascii=False))  # fmt: skip
            return
        table = Table("name", "source", "description")
        for s in skills:
            table.add_row(s.name, s.source, s.description if s.ok else f"[red]not loaded: {s.error}[/]")
        console.print(table)


@app.command("show")
def show(name: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """Show a skill's description and body."""
    with guarded(as_json=as_json):
        s = library().get(name)
        if as_json:
            print(json.dumps({"name": s.name, "source": s.source, "description": s.description, "body": s.body,
                              "path": str(s.path)}, ensure_ascii=False))  # fmt: skip
            return
        console.print(f"[bold]{s.name}[/] ({s.source}, {s.path})\n{s.description}\n")
        console.print(s.body, markup=False, highlight=False)


@app.command("add")
def add(path: Path, replace: bool = typer.Option(False, "--replace", help="Replace an installed skill of that name.")):
    """Install a skill folder into WENSHU_HOME/skills (checked first: a broken skill is refused)."""
    with guarded():
        s = library().add(path, replace=replace)
        console.print(f"Added skill [bold]{s.name}[/] → {s.path}")
