"""`wenshu log`: the audit log (every question, SQL, validation, retries, timings, status; an assistant turn's
route and the tools it called)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from wenshu.cli.common import console, guarded, settings


def log(
    limit: int = typer.Option(20, "--limit", "-n", min=1, max=10_000),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Show the newest audit records."""
    with guarded(as_json=as_json):
        from wenshu.bootstrap import open_store

        rows = open_store(settings()).audit.query(limit=limit)
        if as_json:
            print(json.dumps(rows, ensure_ascii=False, default=str))
            return
        table = Table("time", "datasource", "question", "status", "rows", "ms", "sql / tools")
        for r in rows:
            total = (r.get("timings") or {}).get("total", "")
            table.add_row(str(r["ts"])[:19], r["datasource"] or "", r["question"] or "", r["status"] or "",
                          str(r["row_count"] or 0), str(total), (r["sql"] or _tools(r))[:80])
        console.print(table)


def _tools(row: dict) -> str:
    """An assistant turn's route and the tools it called, e.g. "agent: list_files, read_file ✗"."""
    if not row.get("route"):
        return ""
    called = [t["tool"] + (" ✗" if t.get("outcome") == "error" else "") for t in row.get("tools") or []]
    route = f"{row['route']} ({row['route_reason']})" if row.get("route_reason") else row["route"]
    return f"{route}: {', '.join(called)}" if called else route
