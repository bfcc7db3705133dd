"""Rich rendering of an AgentResponse for the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from wenshu.contracts import AgentResponse
from wenshu.i18n import pick

MAX_ROWS = 20


def result_table(columns: list[str], rows: list[list], limit: int = MAX_ROWS) -> Table:
    table = Table(show_lines=False, header_style="bold cyan")
    for c in columns:
        table.add_column(str(c))
    for r in rows[:limit]:
        table.add_row(*["NULL" if v is None else str(v) for v in r])
    return table


def render_response(console: Console, resp: AgentResponse, lang: str) -> None:
    if resp.sql:
        console.print(Syntax(resp.sql, "sql", theme="ansi_dark", word_wrap=True))
    if resp.columns:
        console.print(result_table(resp.columns, resp.rows))
        if resp.row_count > MAX_ROWS:
            console.print(pick(lang, f"[dim]… {resp.row_count} rows in all[/]", f"[dim]… 共 {resp.row_count} 行[/]"))
    style = "red" if resp.error else "bold green"
    console.print(f"[{style}]{resp.answer}[/]")
    if resp.plan:  # the semantic model's plan answered: its parts, as the web UI's chips show them
        chips = " · ".join(c["label"] for c in resp.plan.get("chips", []))
        console.print(pick(lang, f"[dim]plan: {chips}[/]", f"[dim]查询计划：{chips}[/]"))
    if resp.chart:
        mark = resp.chart.get("mark")
        kind = mark.get("type") if isinstance(mark, dict) else mark
        console.print(pick(lang, f"[dim]chart: {kind}[/]", f"[dim]图表：{kind}[/]"))
    timings = " → ".join(f"{t.node} {t.ms:.0f}ms" + ("" if t.status in ("ok", "cached") else f" ({t.status})")
                         for t in resp.trace)
    extra = pick(lang, " cached", " 命中缓存") if resp.cached else ""
    console.print(f"[dim]{timings}{extra} · llm calls {resp.usage.llm_calls}, "
                  f"tokens {resp.usage.prompt_tokens}+{resp.usage.completion_tokens}[/]")
