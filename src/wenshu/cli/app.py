"""The `wenshu` command line (Typer + Rich). Each command group lives in its own module."""

from __future__ import annotations

import typer

from wenshu.cli import (ask, assist, common, db, desktop, doctor, examples, glossary, log, mcp, model, policy,
                        recall, semantic, serve, skills, sql, token, worker)
from wenshu.cli import kb as kb_cli
from wenshu.cli import task as task_cli

app = typer.Typer(
    name="wenshu",
    help="Wenshu (问数): ask your database questions in Chinese or English, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show stack traces on errors.")) -> None:
    common.STATE["debug"] = debug


app.command("ask")(ask.ask)
app.command("chat")(ask.chat)
app.command("assist")(assist.assist)
app.command("doctor")(doctor.doctor)
app.command("log")(log.log)
app.command("serve")(serve.serve)
app.command("worker")(worker.worker)
app.command("desktop")(desktop.desktop)
db.app.command("recall")(recall.recall)
db.app.command("policy")(policy.policy)
app.add_typer(db.app, name="db")
app.add_typer(kb_cli.app, name="kb")
app.add_typer(model.app, name="model")
app.add_typer(sql.app, name="sql")
app.add_typer(examples.app, name="examples")
app.add_typer(glossary.app, name="glossary")
app.add_typer(token.app, name="token")
app.add_typer(semantic.app, name="semantic")
app.add_typer(skills.app, name="skills")
app.add_typer(mcp.app, name="mcp")
app.add_typer(task_cli.app, name="task")


def main() -> None:
    app()


if __name__ == "__main__":  # `python -m wenshu.cli.app` (the worker processes of `wenshu serve --workers N`)
    main()
