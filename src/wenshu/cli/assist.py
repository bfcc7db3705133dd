"""`wenshu assist "REQUEST" [--workspace DIR]`: the general assistant (data, skills, workspace tools)."""

from __future__ import annotations

from pathlib import Path

import typer

from wenshu.cli.ask import make_agent
from wenshu.cli.common import console, err_console, guarded, settings, ui_lang
from wenshu.cli.render import render_response


def assist(
    request: str = typer.Argument(..., help="What you want, in Chinese or English."),
    workspace: Path = typer.Option(None, "--workspace", "-w", help="A folder the assistant may read, write and test in."),
    db: str = typer.Option(None, "--db", help="Datasource name (default: demo)."),
    as_json: bool = typer.Option(False, "--json", help="Print the AssistantResponse as JSON."),
) -> None:
    """Ask the assistant: data questions go to the data pipeline, other requests to tools and skills."""
    from wenshu.assistant.service import Assistant

    lang = ui_lang(request)
    with guarded(lang, as_json):
        agent = make_agent()
        with Assistant(settings(), agent.store, agent=agent, project_dir=Path.cwd() / "skills") as assistant:
            resp = assistant.ask(request, workspace=workspace, datasource=db)
            _print(resp, lang, as_json)  # before the MCP servers are stopped: a slow one cannot delay the answer
        if resp.status == "fallback":
            raise SystemExit(1)


def _print(resp, lang: str, as_json: bool) -> None:
    for warning in resp.warnings:  # an MCP server left out: said once, on stderr
        err_console.print(f"[yellow]{warning.message}[/] [dim]({warning.code})[/]", highlight=False, soft_wrap=True)
    if as_json:
        print(resp.model_dump_json(), flush=True)
        return
    if resp.data is not None:
        render_response(console, resp.data, lang)
    else:
        for i, step in enumerate(resp.steps, 1):
            mark = "✓" if step.ok else "✗"
            console.print(f"[dim]{i}. {mark} {step.action} {step.arguments}[/]", highlight=False)
        console.print(resp.answer, highlight=False)
        for n, c in enumerate(resp.citations, 1):
            where = " · ".join(p for p in (c.section, f"p. {c.page}" if c.page else "") if p)
            console.print(f"[dim][{n}] {c.document}{' · ' + where if where else ''}[/]", highlight=False)
    extra = [f"route {resp.route}"] + ([f"skills {', '.join(resp.skills)}"] if resp.skills else [])
    console.print(f"[dim]{' · '.join(extra)}[/]")
