"""Drop inner joins the query reads nothing from and the question never names.

A small model often joins one table too many: "the songs of the youngest singer" joined to
`singer_in_concert`, which repeats each singer once per concert and drops singers without one. When
a joined table's columns appear nowhere but in its own ON condition (not in the select list, WHERE,
GROUP BY, ORDER BY, another join or a subquery) and the question names none of the words that set
the table apart from the query's other tables, the join can only change the row count, so it goes.

What keeps a join: any use of its columns; a bridge (its columns link a later join); a name the
question says ("dogs that had treatments" keeps `Treatments`); `SELECT *`; an outer join; a table
whose name has no word of its own; a question not written in the schema's script (a Chinese
question on English names says nothing either way); a count, total or average in the same SELECT
("the city with the most arriving flights" counts the joined flights: there the row count is the answer).
"""

from __future__ import annotations

import re

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.sql.query_tables import one_statement
from wenshu.sql.repair import Repair

_STOP = {"in", "of", "the", "has", "have", "and", "to", "for", "by", "on", "at", "with", "a", "an", "is", "ref"}


def _stem(word: str) -> str:
    word = word.lower()
    for suffix, keep in (("ies", "y"), ("ses", "s"), ("s", "")):
        if len(word) > 3 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return {_stem(w) for w in re.split(r"[^A-Za-z0-9]+", spaced) if w and w.lower() not in _STOP}


def _question_words(question: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[A-Za-z0-9]+", question)}


def _used_outside(select: exp.Select, join: exp.Join, alias: str, columns: set[str], others: set[str]) -> bool:
    """Whether anything but the join's own ON reads the table (qualified by its alias, or an
    unqualified column only it has)."""
    for col in select.find_all(exp.Column):
        if isinstance(col.this, exp.Star):
            return True
        mine = col.table.lower() == alias if col.table else (col.name.lower() in columns - others)
        if mine and col.find_ancestor(exp.Join) is not join:
            return True
    return any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
               for e in select.expressions)  # fmt: skip


def _read(select: exp.Select, table: exp.Table, tables: list[exp.Table], catalog: Catalog) -> bool:
    """Whether the query reads `table` anywhere but in join conditions: always so for the FROM table."""
    if not isinstance(table.parent, exp.Join):
        return True
    alias = table.alias_or_name.lower()
    info = catalog.table(table.name)
    mine = {c.name.lower() for c in (info.columns if info else [])}
    others = {c.name.lower() for t in tables if t is not table and (i := catalog.table(t.name)) for c in i.columns}
    return any((col.table.lower() == alias if col.table else col.name.lower() in mine - others)
               and col.find_ancestor(exp.Join) is None for col in select.find_all(exp.Column))


def _counts_rows(select: exp.Select) -> bool:
    """Whether this SELECT (not a subquery of it) counts, adds or averages rows, where a join's row count
    is the answer."""
    return any(agg.find_ancestor(exp.Select) is select
               for agg in select.find_all(exp.Count, exp.Sum, exp.Avg, exp.GroupConcat))


def _prune(select: exp.Select, catalog: Catalog, said: set[str]) -> list[str]:
    notes: list[str] = []
    if _counts_rows(select):
        return notes
    sources = [select.args.get("from_")] + list(select.args.get("joins") or [])
    tables = [s.this for s in sources if s is not None and isinstance(s.this, exp.Table)]
    if len(tables) != len([s for s in sources if s is not None]):
        return notes  # a derived table: its columns are not known here
    for join in list(select.args.get("joins") or []):
        table = join.this
        if join.side or (join.kind or "").upper() not in ("", "INNER") or join.args.get("on") is None:
            continue
        info = catalog.table(table.name)
        if info is None:
            continue
        rest = [t for t in tables if t is not table]
        other_columns = {c.name.lower() for t in rest if (i := catalog.table(t.name)) for c in i.columns}
        own_columns = {c.name.lower() for c in info.columns}
        if _used_outside(select, join, table.alias_or_name.lower(), own_columns, other_columns):
            continue
        read = [t for t in rest if _read(select, t, tables, catalog)]  # words of a bridge read by nothing set no
        own = _name_words(table.name) - set().union(*(_name_words(t.name) for t in read))  # table apart
        if not own or own & said:
            continue
        join.pop()
        tables.remove(table)
        notes.append(f"dropped JOIN {table.name} (nothing is read from it and the question does not name it)")
    return notes


def drop_unused_joins(sql: str, catalog: Catalog, dialect: str, question: str) -> Repair:
    """`sql` without the inner joins it does not need for `question` (see the module's docstring)."""
    if not question or not question.isascii():
        return Repair(sql)
    tree = one_statement(sql, dialect)
    if not isinstance(tree, exp.Query):
        return Repair(sql)
    said = _question_words(question)
    notes: list[str] = []
    for select in list(tree.find_all(exp.Select)):
        while dropped := _prune(select, catalog, said):  # a bridge read by nothing else goes once its far side has
            notes += dropped
    return Repair(tree.sql(dialect=dialect or None, pretty=True), notes) if notes else Repair(sql)
