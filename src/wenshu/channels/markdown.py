"""An AgentResponse as Markdown: the answer, the SQL in a fenced block and a table of the first rows.

Shared by the OpenAI-compatible endpoint and the chat-bot channels, so every text client sees the
same answer. Cells are escaped so a value can never break the table or open a code block.
"""

from __future__ import annotations

from wenshu.contracts import AgentResponse
from wenshu.engines.values import jsonable
from wenshu.i18n import pick

MAX_TABLE_ROWS = 20
MAX_CELL_CHARS = 80


def _cell(value) -> str:
    if value is None:
        return "NULL"
    text = str(jsonable(value))
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    return " ".join(text.split()) or " "


def markdown_table(columns: list[str], rows: list[list], limit: int = MAX_TABLE_ROWS) -> str:
    """A GitHub-style Markdown table of at most `limit` rows ('' when there are no columns)."""
    if not columns:
        return ""
    head = "| " + " | ".join(_cell(c) for c in columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    body = ["| " + " | ".join(_cell(r[i] if i < len(r) else None) for i in range(len(columns))) + " |"
            for r in rows[:limit]]
    return "\n".join([head, rule, *body])


def rows_note(resp: AgentResponse, shown: int, lang: str) -> str:
    """'Showing 20 of 135 rows.' when the table is cut, else ''."""
    total = max(resp.row_count, len(resp.rows))
    if total <= shown:
        return ""
    more = "+" if resp.truncated else ""
    return pick(lang, f"Showing the first {shown} of {total}{more} rows.", f"仅显示前 {shown} 行，共 {total}{more} 行。")


def sql_block(sql: str | None) -> str:
    if not sql:
        return ""
    return "```sql\n" + sql.strip().replace("```", "` ` `") + "\n```"


def response_markdown(resp: AgentResponse, lang: str, max_rows: int = MAX_TABLE_ROWS) -> str:
    """The full Markdown answer: answer text, SQL block, table and a row-count note."""
    parts = [resp.answer.strip()] if resp.answer and resp.answer.strip() else []
    if resp.sql:
        parts.append(sql_block(resp.sql))
    if resp.columns:
        shown = min(len(resp.rows), max_rows)
        parts.append(markdown_table(resp.columns, resp.rows, max_rows))
        note = rows_note(resp, shown, lang)
        if note:
            parts.append(note)
    return "\n\n".join(parts)


def details_markdown(resp: AgentResponse, lang: str, max_rows: int = MAX_TABLE_ROWS) -> str:
    """Everything after the answer text (for streaming: the answer goes first, this follows)."""
    rest = resp.model_copy(update={"answer": ""})
    return response_markdown(rest, lang, max_rows)
