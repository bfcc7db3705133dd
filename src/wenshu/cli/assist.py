"""`wenshu assist "REQUEST" [--workspace DIR] [-c ID]`: the general assistant (data, skills, workspace tools).

Steps print as they happen (on stderr, so `--json` stays clean): the route, each tool with its arguments and
a short result, a reasoning model's thinking dimmed; the final answer prints as the model writes it."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from wenshu.cli.ask import _progress_printer, make_agent
from wenshu.cli.common import console, err_console, guarded, settings, ui_lang
from wenshu.cli.render import render_response
from wenshu.contracts import Event


def assist(
    request: str = typer.Argument(..., help="What you want, in Chinese or English."),
    workspace: Path = typer.Option(None, "--workspace", "-w", help="A folder the assistant may read, write and test in."),
    db: str = typer.Option(None, "--db", help="Datasource name (default: demo)."),
    conversation: str = typer.Option(None, "--conversation", "-c", help="Continue this conversation id."),
    as_json: bool = typer.Option(False, "--json", help="Print the AssistantResponse as JSON."),
) -> None:
    """Ask the assistant: data questions go to the data pipeline, other requests to tools and skills."""
    from wenshu.assistant.service import Assistant

    lang = ui_lang(request)
    with guarded(lang, as_json):
        agent = make_agent()
        live = LiveSteps(lang, answer_tokens=not as_json)
        with Assistant(settings(), agent.store, agent=agent, project_dir=Path.cwd() / "skills") as assistant:
            resp = assistant.ask(request, workspace=workspace, datasource=db, conversation_id=conversation,
                                 on_event=live)
            _print(resp, lang, as_json, live.streamed)  # before the MCP servers stop: a slow one cannot delay it
        if resp.status == "fallback":
            raise SystemExit(1)


class LiveSteps:
    """The assistant's events as they come: tools on stderr, the agent's final answer token by token."""

    def __init__(self, lang: str, answer_tokens: bool):
        self.progress = _progress_printer(lang, nodes=False)  # the one-time model preparation, as `wenshu ask`
        self.answer_tokens = answer_tokens
        self.route = ""
        self.streamed = ""
        self.thought = False  # thinking was printed and its line is still open

    def __call__(self, event: Event) -> None:
        data = event.data if isinstance(event.data, dict) else {}
        if self.thought and event.type != "thinking":  # what follows the thinking starts on a line of its own
            err_console.print()
            self.thought = False
        if event.type == "node" and event.node == "route" and event.status != "started":
            self.route = str(data.get("detail", ""))
        elif event.type == "node" and event.node == "subquestion" and event.status == "started":
            err_console.print(f"· [{data.get('n')}/{data.get('of')}] {data.get('question')}", style="dim", markup=False,
                              highlight=False, soft_wrap=True)
        elif event.type == "node" and event.node in ("tool", "subquestion") and event.status == "started":
            args = json.dumps(data.get("arguments") or {}, ensure_ascii=False)
            err_console.print(f"· {data.get('tool')} {args}", style="dim", markup=False, highlight=False,
                              soft_wrap=True)
        elif event.type == "node" and event.node in ("tool", "subquestion"):
            mark = "✓" if event.status == "ok" else "✗"
            err_console.print(f"  {mark} {data.get('detail', '')} ({event.ms:.0f} ms)", style="dim", markup=False,
                              highlight=False, soft_wrap=True)
        elif event.type == "thinking":  # a reasoning model's thinking: dimmed, on stderr, never the answer
            err_console.print(str(event.data), end="", style="dim italic", markup=False, highlight=False,
                              soft_wrap=True)
            self.thought = True
        elif event.type == "token" and self.route != "data" and self.answer_tokens:  # the pipeline's tokens are SQL
            console.print(str(event.data), end="", markup=False, highlight=False, soft_wrap=True)
            self.streamed += str(event.data)
        else:
            self.progress(event)


def _print(resp, lang: str, as_json: bool, streamed: str = "") -> None:
    for warning in resp.warnings:  # an MCP server left out: said once, on stderr
        err_console.print(f"[yellow]{warning.message}[/] [dim]({warning.code})[/]", highlight=False, soft_wrap=True)
    if as_json:
        print(resp.model_dump_json(), flush=True)
        return
    if resp.data is not None:
        render_response(console, resp.data, lang)
    elif resp.route == "wide":  # the sub-questions' answers are the answer
        _print_parts(resp.parts, lang)
    else:
        if streamed:
            console.print()  # the answer streamed; it is reprinted only when a repair changed it
        if streamed.strip() != resp.answer.strip():
            console.print(resp.answer, highlight=False, markup=False)
        for n, c in enumerate(resp.citations, 1):
            where = " · ".join(p for p in (c.section, f"p. {c.page}" if c.page else "") if p)
            console.print(f"[dim][{n}] {c.document}{' · ' + where if where else ''}[/]", highlight=False)
        _print_parts(resp.parts, lang)
    route = f"route {resp.route}" + (f" ({resp.route_reason})" if resp.route_reason else "")
    extra = [route] + ([f"skills {', '.join(resp.skills)}"] if resp.skills else [])
    console.print(f"[dim]{' · '.join(extra + [f'conversation {resp.conversation_id}'])}[/]", highlight=False)


def _print_parts(parts, lang: str) -> None:
    """Each answer of the data pipeline behind the answer (a sub-question, a query_database call): its SQL and table."""
    for n, part in enumerate(parts, 1):
        console.print(f"[bold]{n}. {escape(part.question)}[/]", highlight=False)
        render_response(console, part.response, lang)
