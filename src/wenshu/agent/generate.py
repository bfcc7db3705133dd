"""SQL generation: build the prompt (pure) and turn the model's text into one SQL statement.

The prompt is ordered for the model's prompt-prefix cache: the system message (role, rules, schema
block) is the same for every question of a datasource; everything per question follows in the user
message: matched glossary terms, value hints, similar examples, earlier turns, the question and,
on a retry, why the last SQL was refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.prompts import render
from wenshu.engines.registry import adapter_for
from wenshu.knowledge.time_phrases import TimeWindow

MAX_GLOSSARY = 5  # matched terms shown to the model
MAX_VALUES = 8  # value hints shown to the model
MAX_SYNONYMS = 3


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
    values: list[dict] = field(default_factory=list)  # [{table, column, value, label?}] from value recall
    glossary: list[dict] = field(default_factory=list)  # [{term, kind, definition, sql, synonyms, tables}]
    time_windows: list[TimeWindow] = field(default_factory=list)  # relative dates of the question, resolved
    # Set when the system message is the same for every question of this datasource (the whole schema):
    # the model may then keep its evaluated state on disk (providers/prefix_cache.py), under this name.
    prefix_cache: str | None = None


def _examples(examples: list[dict]) -> str:
    if not examples:
        return ""
    items = "\n".join(f"Question: {e['question']}\nSQL: {e['sql']}" for e in examples)
    return render("generate_examples", items=items)


def _literal(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "'" + str(value).replace("'", "''") + "'"
    return str(value)


def values_block(values: list[dict]) -> str:
    """One filter per recalled value: `regions.region_name = '华东'` (with the code's label, if any)."""
    lines, seen = [], set()
    for v in values:
        line = f"{v['table']}.{v['column']} = {_literal(v['value'])}"
        if v.get("label"):
            line += f"  -- {v['label']}"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    return render("generate_values", items="\n".join(lines[:MAX_VALUES])) if lines else ""


def _glossary(terms: list[dict]) -> str:
    lines = []
    for t in terms[:MAX_GLOSSARY]:
        synonyms = [s for s in t.get("synonyms") or [] if s][:MAX_SYNONYMS]
        name = t["term"] + (f" ({', '.join(synonyms)})" if synonyms else "")
        line = f"- {name}: {' '.join(str(t.get('definition') or '').split())}"
        if t.get("sql"):
            line += f"\n  SQL: {t['sql']}"
        if t.get("tables") and (t.get("kind") == "topic" or not t.get("sql")):
            line += f"\n  Tables: {', '.join(t['tables'])}"
        lines.append(line)
    return render("generate_glossary", items="\n".join(lines)) if lines else ""


def _time(windows: list[TimeWindow]) -> str:
    lines = [f"- {w.phrase}: {w.condition()}" for w in windows]
    return render("generate_time", items="\n".join(lines)) if lines else ""


def _history(history: list[Turn]) -> str:
    turns = [t for t in history if t.sql]
    if not turns:
        return ""
    lines = []
    for t in turns:
        lines.append(f"Question: {t.question}\nSQL: {t.sql}" + (f"\nResult: {t.summary}" if t.summary else ""))
    return render("generate_history", items="\n".join(lines))


def engine_label(dialect: str) -> str:
    """The engine's name as the prompt says it."""
    adapter = adapter_for(dialect)
    return adapter.label if adapter is not None else dialect


def build_messages(inp: GenerateInput) -> list[BaseMessage]:
    """The stable part (role, rules, schema) goes first so the model's prompt-prefix cache is reused."""
    system = render(
        "generate_system",
        dialect=engine_label(inp.dialect),
        row_limit=inp.row_limit,
        today=inp.today,
        schema=inp.schema_block,
    )
    feedback = ""
    if inp.feedback:
        feedback = render("generate_feedback", previous_sql=inp.previous_sql or "(none)", reason=inp.feedback)
    follow_up = any(t.sql for t in inp.history)
    user = render(
        "generate_user",
        glossary=_glossary(inp.glossary),
        values=values_block(inp.values),
        time=_time(inp.time_windows),
        # On a follow-up the last SQL is the template to edit; other questions' SQL only distracts.
        examples="" if follow_up else _examples(inp.examples),
        history=_history(inp.history),
        feedback=feedback,
        question=inp.question,
    )
    kwargs = {"prefix_cache": inp.prefix_cache} if inp.prefix_cache else {}
    return [SystemMessage(system, additional_kwargs=kwargs), HumanMessage(user.strip())]
