"""SQL generation: build the prompt (pure) and turn the model's text into one SQL statement."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.agent.prompts import render

DIALECT_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB"}


@dataclass
class Turn:
    question: str
    sql: str | None
    summary: str | None = None


@dataclass
class GenerateInput:
    question: str
    dialect: str
    schema_block: str
    today: str
    row_limit: int
    examples: list[dict]
    history: list[Turn]
    previous_sql: str | None = None
    feedback: str | None = None


def _examples(examples: list[dict]) -> str:
    if not examples:
        return ""
    items = "\n".join(f"Question: {e['question']}\nSQL: {e['sql']}" for e in examples)
    return render("generate_examples", items=items)


def _history(history: list[Turn]) -> str:
    turns = [t for t in history if t.sql]
    if not turns:
        return ""
    lines = []
    for t in turns:
        lines.append(f"Question: {t.question}\nSQL: {t.sql}" + (f"\nResult: {t.summary}" if t.summary else ""))
    return render("generate_history", items="\n".join(lines))


def build_messages(inp: GenerateInput) -> list[BaseMessage]:
    """The stable part (role, rules, schema) goes first so the model's prompt-prefix cache is reused."""
    system = render(
        "generate_system",
        dialect=DIALECT_NAMES.get(inp.dialect, inp.dialect),
        row_limit=inp.row_limit,
        today=inp.today,
        schema=inp.schema_block,
    )
    feedback = ""
    if inp.feedback:
        feedback = render("generate_feedback", previous_sql=inp.previous_sql or "(none)", reason=inp.feedback)
    user = render(
        "generate_user",
        examples=_examples(inp.examples),
        history=_history(inp.history),
        feedback=feedback,
        question=inp.question,
    )
    return [SystemMessage(system), HumanMessage(user.strip())]
