"""Does the SQL use what the question pins down? Deterministic checks run by the evaluate step.

Small models often drop a filter the question names (a 一线城市 question answered for all cities)
or take a date window from an example instead of the question. Two facts are known before any
model call, so they can be checked exactly:

- value hints whose value or label is written in the question (e.g. 一线 -> cities.city_tier = 1):
  the SQL must reference that column;
- relative time phrases (`wenshu.knowledge.time_phrases`): the SQL must use the resolved window's
  date modifiers (e.g. 'weekday 0' and '-13 days' for 上周).

- a question asked per group (各渠道, 每个城市, 分别, "by channel", "for each", "per month") needs
  one row per group: an aggregate without GROUP BY answers a different question.

- a string literal the SQL filters on that comes from a few-shot example's SQL, not from the
  question, its value hints or the conversation, was copied (a 华东 filter in an answer about
  all regions): it must go.

Each is a check of the registry in `agent/checks.py`: a miss becomes feedback for one more generation
round, naming the exact filter to add.
"""

from __future__ import annotations

import re
from functools import lru_cache

import sqlglot
from sqlglot import exp

from wenshu.knowledge.time_phrases import TimeWindow

_QUOTED = re.compile(r"'([^']*)'")


def _norm(text: str) -> str:
    """Lower case, no spaces, plural units singular ('-1 months' == '-1 month')."""
    return re.sub(r"(day|month|year|hour|minute|second)s\b", r"\1", text.lower()).replace(" ", "")


@lru_cache(maxsize=64)
def parse(sql: str, dialect: str) -> exp.Expression | None:
    """The statement's tree, parsed once for all checks of an answer (callers must not modify it);
    None when it does not parse (that is the validator's business, not ours)."""
    try:
        return sqlglot.parse_one(sql, read=dialect or None)
    except Exception:  # noqa: BLE001
        return None


def select_tables(select: exp.Select) -> dict[str, str]:
    """alias (lower case) -> table name for the tables in a SELECT's own FROM and JOINs."""
    out = {}
    for node in [select.args.get("from_")] + list(select.args.get("joins") or []):
        if node is not None and isinstance(node.this, exp.Table):
            out[node.this.alias_or_name.lower()] = node.this.name
    return out


def _columns(sql: str, dialect: str) -> set[str] | None:
    """Column references as `table.column` where the table is known (through aliases, or the only
    table of their SELECT), else as bare `column`; lower case."""
    tree = parse(sql, dialect)
    if tree is None:
        return None
    out = set()
    for c in tree.find_all(exp.Column):
        select = c.find_ancestor(exp.Select)
        tables = {a: t.lower() for a, t in select_tables(select).items()} if select is not None else {}
        owner = tables.get(c.table.lower()) if c.table else (next(iter(tables.values())) if len(tables) == 1 else None)
        out.add(f"{owner}.{c.name.lower()}" if owner else c.name.lower())
    return out


def missing_values(question: str, sql: str, values: list[dict], dialect: str) -> list[dict]:
    """Value hints written in the question whose column (on its table) the SQL never references."""
    used = _columns(sql, dialect)
    if used is None:
        return []
    low = question.lower()

    def referenced(v: dict) -> bool:
        column = str(v["column"]).lower()
        return f"{str(v['table']).lower()}.{column}" in used or column in used

    def key(v: dict) -> tuple[str, str]:
        return str(v.get("value")), str(v.get("label") or "")

    # A value stored in several columns is covered when any of them is used.
    covered = {key(v) for v in values if referenced(v)}
    out, seen = [], set()
    for v in values:
        said = [str(x) for x in (v.get("label"), v.get("value")) if x not in (None, "")]
        if key(v) in covered | seen:
            continue
        if any(len(s) >= 2 and s.lower() in low for s in said):
            seen.add(key(v))
            out.append(v)
    return out


def _has_upper_date_bound(sql: str) -> bool:
    """Whether some `<`, `<=` or BETWEEN compares with a date computed from now."""
    tree = parse(sql, "sqlite")  # time windows are resolved to SQLite expressions
    if tree is None:
        return True  # unparseable: not ours to judge
    return any("'now'" in node.sql().lower() for node in tree.find_all(exp.LT, exp.LTE, exp.Between))


def missing_windows(sql: str, windows: list[TimeWindow]) -> list[TimeWindow]:
    """Time windows whose start modifiers do not all appear in the SQL, or that end before now
    (上个月, last week) while the SQL sets no upper bound."""
    text = _norm(sql)
    out = []
    for w in windows:
        modifiers = [m for m in _QUOTED.findall(w.start) if m != "now" and "%" not in m]
        if modifiers and not all(_norm(f"'{m}'") in text for m in modifiers):
            out.append(w)
        elif w.end and "'now'" in w.end and not _has_upper_date_bound(sql):
            out.append(w)
    return out


# "Per group" wording. 平均每天 / "per order" state a ratio, not a breakdown, and passive "by"
# ("owned by", "sorted by") names no group, so those are left out.
_GROUP_ZH = re.compile(r"各|每个|每一|每位|每家|每种|每类|每天|每日|每周|每月|每年|每季度|分别|不同")
_PASSIVE_BY = re.compile(r"\b\w+(?:ed|en|ort|rder) by\b", re.I)


def asks_per_group(question: str) -> bool:
    if "平均每" in question:
        return False
    if _GROUP_ZH.search(question):
        return True
    text = _PASSIVE_BY.sub(" ", question)
    return bool(re.search(r"\b(?:for each|each|every)\b|\bper (?!cent\b|order\b|customer\b|person\b)\w|\bby \w", text, re.I))


def missing_grouping(question: str, sql: str, dialect: str) -> bool:
    """A per-group question answered with one aggregate over everything."""
    if not asks_per_group(question):
        return False
    tree = parse(sql, dialect)
    if not isinstance(tree, exp.Select) or tree.args.get("group") or tree.find(exp.Window):
        return False
    return any(p.find(exp.AggFunc) for p in tree.expressions)


def _literals(sql: str, dialect: str) -> set[str]:
    tree = parse(sql, dialect)
    if tree is None:
        return set()
    return {lit.this for lit in tree.find_all(exp.Literal) if lit.is_string and len(lit.this) >= 2
            and lit.find_ancestor(exp.Where, exp.Having, exp.Join)}  # fmt: skip


def copied_literals(question: str, sql: str, examples: list[dict], values: list[dict], context: list[str],
                    dialect: str) -> list[str]:
    """Filter values the SQL shares with an example's SQL but that nothing in this question grounds."""
    from_examples = set().union(*(_literals(e.get("sql") or "", dialect) for e in examples)) if examples else set()
    if not from_examples:
        return []
    grounded = " ".join([question, *context]).lower()
    hinted = {str(v.get("value")) for v in values}
    return sorted(lit for lit in _literals(sql, dialect) & from_examples
                  if lit.lower() not in grounded and lit not in hinted and not _date_modifier(lit))  # fmt: skip


def _date_modifier(text: str) -> bool:
    return bool(re.fullmatch(r"now|start of \w+|weekday \d|[+-]?\d+ \w+|%.*", text.strip(), re.I))


_QUALIFIED = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")


def missing_terms(question: str, sql: str, glossary: list[dict], dialect: str) -> list[dict]:
    """Glossary terms written in the question whose definition's columns the SQL never touches."""
    used = _columns(sql, dialect)
    if used is None:
        return []
    low = question.lower()
    out = []
    for term in glossary:
        names = [term.get("term") or "", *(term.get("synonyms") or [])]
        if not term.get("sql") or not any(len(n) >= 2 and n.lower() in low for n in names):
            continue
        columns = {(t.lower(), c.lower()) for t, c in _QUALIFIED.findall(term["sql"])}
        if columns and not any(f"{t}.{c}" in used or c in used for t, c in columns):
            out.append(term)
    return out
