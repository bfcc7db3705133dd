"""`wenshu ask` (one question) and `wenshu chat` (a REPL that keeps the conversation)."""

from __future__ import annotations

from pathlib import Path

import typer

from wenshu.cli.common import console, err_console, guarded, progress_bar, report, settings, ui_lang
from wenshu.cli.render import render_response
from wenshu.contracts import AgentRequest, Event
from wenshu.i18n import pick


def make_agent():
    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store

    s = settings()
    store = open_store(s)
    with progress_bar() as progress:
        ensure_demo(s, store, progress=progress)
    return Agent(s, store)


def ask(
    question: str = typer.Argument(..., help="Your question, in Chinese or English."),
    db: str = typer.Option(None, "--db", help="Datasource name (default: demo)."),
    conversation: str = typer.Option(None, "--conversation", "-c", help="Continue this conversation id."),
    as_json: bool = typer.Option(False, "--json", help="Print the AgentResponse as JSON."),
) -> None:
    """Ask one question and print the SQL, the table, the answer and the timings."""
    lang = ui_lang(question)
    with guarded(lang, as_json):
        agent = make_agent()
        resp = agent.ask(AgentRequest(message=question, datasource=db, conversation_id=conversation),
                         on_event=_progress_printer(lang, nodes=False))  # stderr: --json stays clean
        if as_json:
            print(resp.model_dump_json())
        else:
            render_response(console, resp, lang)
            console.print(f"[dim]conversation: {resp.conversation_id}[/]")
        if resp.error and resp.error.code != "unanswerable":
            raise SystemExit(1)


def _progress_printer(lang: str = "en", nodes: bool = True):
    """Node starts (`nodes`), and the one-time preparation of a datasource's prompt prefix (its cost, said once)."""
    shown: set[int] = set()

    def on_event(event: Event) -> None:
        if nodes and event.type == "node" and event.status == "started":
            err_console.print(f"[dim]· {event.node}…[/]")
        elif event.type == "progress" and isinstance(event.data, dict) and event.data.get("stage") == "prefix":
            done, total = event.data.get("done", 0), event.data.get("total") or 1
            pct = 100 * done // total
            if done == 0 or pct // 25 not in shown:
                shown.add(pct // 25)
                err_console.print(pick(
                    lang, f"[dim]  preparing the model for this datasource, once ({total} tokens): {pct}%[/]",
                    f"[dim]  首次为该数据源准备模型（{total} 个词元，仅一次）：{pct}%[/]"))
        elif event.type == "progress" and isinstance(event.data, dict) and event.data.get("stage") == "prefix_ready":
            if event.data.get("source") == "disk":
                err_console.print(pick(lang, "[dim]  loaded the saved prompt prefix[/]", "[dim]  已载入保存的提示前缀[/]"))
    return on_event


def chat(
    db: str = typer.Option(None, "--db", help="Datasource name (default: demo)."),
    conversation: str = typer.Option(None, "--conversation", "-c", help="Resume this conversation id."),
) -> None:
    """Interactive chat; follow-ups build on earlier answers. Ctrl-C stops the current answer; Ctrl-D quits."""
    lang = ui_lang()
    with guarded(lang):
        agent = make_agent()
        agent.models()  # fail early, in one sentence, when no model is available
    _setup_history(settings().home / "chat_history")
    console.print(pick(lang, "[bold]Wenshu chat[/] — ask about your data; Ctrl-C stops an answer, Ctrl-D quits.",
                       "[bold]问数[/] — 用自然语言提问；Ctrl-C 停止当前回答，Ctrl-D 退出。"))
    cid = conversation
    while True:
        try:
            question = input("问数> ").strip()
        except EOFError:
            console.print()
            return
        except KeyboardInterrupt:
            console.print()
            continue
        if not question:
            continue
        if question in ("/quit", "/exit", "exit", "quit"):
            return
        qlang = ui_lang(question)
        try:
            resp = agent.ask(AgentRequest(message=question, datasource=db, conversation_id=cid),
                             on_event=_progress_printer(qlang))
            cid = resp.conversation_id
            render_response(console, resp, qlang)
        except KeyboardInterrupt:
            console.print(pick(qlang, "[yellow]Stopped.[/]", "[yellow]已停止。[/]"))
        except Exception as exc:  # a failed turn is reported; the session goes on
            report(exc, qlang)


def _setup_history(path: Path) -> None:
    try:
        import readline

        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            readline.read_history_file(path)
        import atexit

        atexit.register(readline.write_history_file, path)
    except (ImportError, OSError):
        pass
