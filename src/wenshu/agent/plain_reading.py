"""A second reading: when the first SQL cannot answer, ask again with a plain prompt and keep what runs.

The generation prompt carries rules, value hints, glossary terms, examples and a compact schema. They
help most questions, and they also steer a small model into the same wrong reading on every retry.
A plain prompt (the schema as `CREATE TABLE` statements, the question, nothing else: the layout of the
model's training data) fails on different questions. Measured on the bench (README, Accuracy), the two
disagree often enough that each rescues the other where one cannot run.

So the first SQL keeps the answer whenever it runs and returns rows. When it is refused, fails or comes
back empty, one greedy answer to the plain prompt is run the same way (repaired, guarded, read-only,
bounded); if it returns rows it continues in the first one's place, else the first one goes on to its
usual retry with feedback. Check id `plain_reading`; only on a first turn without a relative time
window (a follow-up's meaning lives in the earlier turns, and "last month" in today's date, neither of
which a plain prompt carries).

`unkeyed_join` asks the plain prompt also when the first SQL runs but joins on columns no key links (it
guessed how two tables relate, `sql/join_keys.py`), and keeps the plain SQL when it returns other rows
and its own joins are keyed. Off by default: live on Spider-DK it fired on 20 questions, 3 right with it and
without it.

`plain_preferred` (off by default: live on spider_dev_200 it lost 0.5 points and tripled the median time)
asks the plain prompt on every such first turn without a glossary term, and keeps its SQL when both return
rows and disagree. `plain_values` (off by default: it lost where it fires) shows the plain prompt the stored
values the question names.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.agent.checked_run import CheckedRun
from wenshu.agent.generate import engine_label, values_block
from wenshu.agent.vote import Runner, make_runner
from wenshu.catalog import Catalog
from wenshu.errors import WenshuError
from wenshu.knowledge.schema_block import table_block
from wenshu.prompts import render
from wenshu.sql.extract import extract_sql
from wenshu.sql.join_keys import unkeyed_conditions
from wenshu.sql.repair import repair_sql


def plain_schema(catalog: Catalog, tables: list[str] | None = None) -> str:
    """The tables as bare `CREATE TABLE` statements: keys kept, no example values."""
    keep = None if tables is None else {t.lower() for t in tables}
    chosen = [t for t in catalog.tables if keep is None or t.name.lower() in keep]
    return "\n\n".join(table_block(t, examples=False) for t in chosen)


def plain_messages(question: str, dialect_label: str, schema: str, prefix_cache: str | None,
                   values: str = "") -> list[BaseMessage]:
    """The plain prompt; the system message (instruction and schema) is the same for every question. `values`:
    the stored values the question names, as the generation prompt shows them (check `plain_values`); the
    bench's naive baseline has none."""
    kwargs = {"prefix_cache": prefix_cache} if prefix_cache else {}
    system = render("plain_system", dialect=dialect_label, schema=schema).strip()
    user = render("plain_user", values=values.strip() + "\n\n" if values.strip() else "", question=question)
    return [SystemMessage(system, additional_kwargs=kwargs), HumanMessage(user.strip())]


def guessed_join(sql: str, catalog: Catalog) -> bool:
    """Whether `sql`, once repaired, joins on columns no key links (`sql/join_keys.py`, check `unkeyed_join`)."""
    return bool(unkeyed_conditions(repair_sql(sql, catalog, catalog.dialect).sql, catalog, catalog.dialect))


def second_reading(first: str, run: Runner, write: Callable[[], str | None], prefer_plain: bool = False,
                   accept: Callable[[str], bool] | None = None) -> tuple[str, dict | None]:
    """The SQL to continue with, and a note when the plain reading was asked ({first_ran, plain_ran,
    agree, chosen}). `prefer_plain`: asked even when the first SQL runs, and kept when the two disagree;
    `accept`: what the plain SQL must also pass to replace a first SQL that ran."""
    first_sig = run(first)
    if first_sig is not None and not prefer_plain:
        return first, None
    plain = write()
    fits = accept is None or first_sig is None or accept(plain or "")  # a first SQL that ran is left only for a fitting one
    plain_sig = run(plain) if plain and plain.strip() != first.strip() and fits else None
    chosen = "plain" if plain_sig is not None and plain_sig != first_sig else "first"
    note = {"first_ran": first_sig is not None, "plain_ran": plain_sig is not None,
            "agree": plain_sig is not None and plain_sig == first_sig, "chosen": chosen}
    return (plain if chosen == "plain" else first), note


def reread(first: str, schema: dict, q: dict, ctx, prefer_plain: bool = False,
           keyed: bool = False) -> tuple[str, dict | None]:
    """`second_reading` for the agent: the plain prompt over the schema recall showed (its own cached
    prefix when that is the whole schema), candidates run through the one checked run path; `keyed`: the
    plain SQL is kept only if its joins are keyed (asked because the first one's are not)."""

    def write() -> str | None:  # the plain prompt is built only when it is asked
        catalog = ctx.catalog(q["datasource"])
        whole = schema.get("whole")
        text = plain_schema(catalog, None if whole else schema.get("tables"))
        values = "" if "plain_values" in ctx.disabled_checks else values_block(schema.get("values") or [])
        messages = plain_messages(q["question"], engine_label(catalog.dialect), text,
                                  f"{q['datasource']}#plain" if whole else None, values)
        try:
            return extract_sql(ctx.models.text("strong", messages, temperature=0.0))
        except WenshuError:  # a second opinion that fails (a timeout) leaves the first SQL to its retry
            return None

    catalog = ctx.catalog(q["datasource"])
    accept = (lambda sql: not guessed_join(sql, catalog)) if keyed else None
    return second_reading(first, make_runner(CheckedRun.for_agent(ctx, q["datasource"])), write, prefer_plain, accept)
