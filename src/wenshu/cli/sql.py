"""`wenshu sql run` (validated, read-only execution of your own SQL) and `wenshu sql check` (the
guard's verdict without running anything; `--batch` for JSON lines on stdin)."""

from __future__ import annotations

import json
import sys

import typer

from wenshu.cli.common import console, guarded, settings
from wenshu.cli.examples import open_knowledge_store
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
        from wenshu.agent.sql_service import run_checked

        s = settings()
        out = run_checked(s, open_knowledge_store(), sql_text, db or s.default_datasource)
        if as_json:
            print(out.model_dump_json())
            return
        console.print(result_table(out.columns, out.rows))
        console.print(f"[dim]{out.row_count} rows{' (truncated)' if out.truncated else ''}[/]")


def _print_outcome(out) -> None:
    verdict = "[bold green]PASS 通过[/]" if out.passed else "[bold red]REFUSED 已拒绝[/]"
    console.print(f"{verdict}  layer {out.layer}  [dim]{out.code}[/]", highlight=False)
    if out.reason:
        console.print(f"reason 原因: {out.reason}", highlight=False, soft_wrap=True)
    if out.hint_for_model:
        console.print(f"hint 提示: {out.hint_for_model}", highlight=False, soft_wrap=True)
    if out.passed:
        console.print(f"sql:\n{out.sql}", highlight=False, soft_wrap=True)


def _batch(guard, dialect: str, catalog, url) -> None:
    from wenshu.guard.batch import check_lines

    for out in check_lines(sys.stdin, guard, dialect=dialect, catalog=catalog, url=url):
        sys.stdout.write(json.dumps(out.to_dict(), ensure_ascii=False) + "\n")
    sys.stdout.flush()


@app.command("check")
def check(
    sql_text: str = typer.Argument(None, metavar="SQL", help="The statement (omit with --batch)."),
    db: str = typer.Option(None, "--db", help="Datasource: catalog, access policy, dialect and plan check."),
    dialect: str = typer.Option(None, "--dialect", help="Parser dialect: sqlite, postgres, mysql, duckdb, ..."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as one JSON object."),
    batch: bool = typer.Option(False, "--batch", help='Read JSON lines {"sql": ..., "dialect": ...} from stdin.'),
) -> None:
    """Check SQL with the guard (layers 1-3, and the plan with --db) without running it. Exit 1 when refused."""
    with guarded(as_json=as_json or batch):
        from wenshu.agent.sql_service import guard_for

        if not batch and sql_text is None:
            raise typer.BadParameter("give the SQL to check, or --batch to read JSON lines from stdin")
        guard, catalog, url, db_dialect = (guard_for(settings(), db, open_knowledge_store()) if db
                                           else (None, None, None, ""))
        if guard is None:
            from wenshu.guard import Guard

            guard = Guard.from_settings(settings())
        use = dialect or db_dialect
        if batch:
            _batch(guard, use, catalog, url)
            return
        out = guard.check(sql_text, dialect=use, catalog=catalog, url=url)
        if as_json:
            print(json.dumps(out.to_dict(), ensure_ascii=False))
        else:
            _print_outcome(out)
    if not out.passed:
        raise typer.Exit(1)
