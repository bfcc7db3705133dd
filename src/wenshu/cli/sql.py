"""`wenshu sql run`: validated, read-only execution of your own SQL."""

from __future__ import annotations


import typer

from wenshu.cli.common import console, guarded, settings
from wenshu.cli.render import result_table

app = typer.Typer(help="Run SQL through the guard.", no_args_is_help=True)


@app.command("run")
def run(
    sql_text: str = typer.Argument(..., metavar="SQL"),
    db: str = typer.Option(None, "--db", help="Datasource name (default: demo)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Validate SQL (read-only, known tables and columns, row limit), then run it read-only."""
    with guarded(as_json=as_json):
        from wenshu.bootstrap import ensure_demo, open_store
        from wenshu.sql.runner import run_checked

        s = settings()
        store = open_store(s)
        ensure_demo(s, store)
        out = run_checked(s, store, sql_text, db or s.default_datasource)
        if as_json:
            print(out.model_dump_json())
            return
        console.print(result_table(out.columns, out.rows))
        console.print(f"[dim]{out.row_count} rows{' (truncated)' if out.truncated else ''}[/]")
