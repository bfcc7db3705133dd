"""The accuracy checks, each registered by id, with its feedback text in the prompts folder
(`prompts/check_<id>.md`) and a switch to turn it off (`settings.disabled_checks`), so that
`python -m bench sql --ablate ID` can measure what each one changes.

Stages, in the order an answer meets them:

- `scope`: `off_topic` answers "this database has no data about X" before any SQL is written when
  nothing in the datasource is about the question (`agent/scope.py`).
- `recall`: `crosslingual_values` links the Chinese words of a question to the English values the
  database stores (法国 -> 'France') through the multilingual embedder (`knowledge/crosslingual.py`).
- `plan`: `near_words` keeps a measure or dimension the plan model chose when a phrase of the question
  that no entry lists is close to its words in meaning ("takings", 回头客), through the same embedder
  (`semantic/nearby.py`); without it such a choice is dropped as not said. Off by default: on `biz_val`
  it fired on 2 of 45 questions and changed no answer.
- `repair`: `schema_repair` fixes in code what the catalog can (a column on the wrong table, a table
  used but not joined) before the guard reads the SQL (`sql/repair.py`); `unused_join` drops an inner
  join the query reads nothing from and the question does not name (`sql/unused_joins.py`);
  `repeated_rows` lists once (DISTINCT), or averages and adds once (a semi-join), the rows a join to a
  table nothing is selected from only repeats (`sql/repeated_rows.py`; not on a compiled plan).
- `generate`: `plain_reading` asks a plain prompt (the schema as `CREATE TABLE`, the question) once when
  the first SQL is refused, fails or returns no rows, and keeps its SQL if that returns rows
  (`agent/plain_reading.py`); `unkeyed_join` asks it also when the first SQL runs but joins on columns no
  key links, and keeps its SQL when that returns other rows through keyed joins (`sql/join_keys.py`; off by
  default: no gain on Spider-DK);
  `plain_values` shows that prompt the stored values the question names.
- `retry`: `retry` sends a statement the guard refused, or that failed to run, back to the model with
  the reason (the graph's validate/execute loops).
- `result`: rules on the rows that came back; the first one that fails speaks (`agent/result_checks.py`).
- `coverage`: does the SQL use what the question pins down (values, windows, glossary terms, groups),
  and does a follow-up keep the conditions of the answer it builds on; every miss is listed
  (`agent/coverage.py`, `agent/followup.py`). Not run on a compiled plan, which takes these from the
  semantic model and the time resolver.
- `judge`: the fast model judges the result; off unless `settings.evaluate_with_model`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from wenshu.agent import coverage as cov
from wenshu.agent import result_checks as rc
from wenshu.agent.followup import dropped_conditions
from wenshu.prompts import render
from wenshu.errors import InputError


@dataclass(frozen=True)
class Answer:
    """What the checks read: the question, the SQL that ran and its rows, and what was known before."""

    question: str
    query_type: str
    sql: str
    columns: list[str]
    rows: list[list]
    row_count: int
    dialect: str = ""
    values: list[dict] = field(default_factory=list)
    windows: list = field(default_factory=list)
    examples: list[dict] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # earlier turns' questions and SQL
    glossary: list[dict] = field(default_factory=list)
    previous_sql: str | None = None
    catalog: object = None


Finder = Callable[[Answer], list[dict]]  # one dict of prompt values per miss


@dataclass(frozen=True)
class Check:
    id: str
    stage: str
    find: Finder | None = None  # None: the check lives in another step (repair, retry, judge)


def _literal(value: object) -> str:
    return str(value) if str(value).lstrip("-").isdigit() else f"'{value}'"


def _terms(a: Answer) -> list[dict]:
    return [{"term": t["term"], "sql": " ".join(str(t["sql"]).split())}
            for t in cov.missing_terms(a.question, a.sql, a.glossary, a.dialect)]  # fmt: skip


def _values(a: Answer) -> list[dict]:
    missing = cov.missing_values(a.question, a.sql, a.values, a.dialect)
    return [{"said": v.get("label") or v["value"], "table": v["table"], "column": v["column"],
             "literal": _literal(v["value"])} for v in missing]  # fmt: skip


def _windows(a: Answer) -> list[dict]:
    return [{"phrase": w.phrase, "condition": w.condition()} for w in cov.missing_windows(a.sql, a.windows)]


def _copied(a: Answer) -> list[dict]:
    found = cov.copied_literals(a.question, a.sql, a.examples, a.values, a.context, a.dialect)
    return [{"literal": lit} for lit in found]


def _grouping(a: Answer) -> list[dict]:
    return [{}] if cov.missing_grouping(a.question, a.sql, a.dialect) else []


def _followup(a: Answer) -> list[dict]:
    if not a.previous_sql:
        return []
    dropped = dropped_conditions(a.previous_sql, a.sql, a.catalog, a.dialect, bool(a.windows))
    return [{"conditions": "; ".join(dropped)}] if dropped else []


CHECKS: dict[str, Check] = {c.id: c for c in (
    Check("off_topic", "scope"),
    Check("crosslingual_values", "recall"),
    Check("near_words", "plan"),
    Check("schema_repair", "repair"),
    Check("unused_join", "repair"),
    Check("repeated_rows", "repair"),
    Check("plain_reading", "generate"),
    Check("plain_preferred", "generate"),
    Check("unkeyed_join", "generate"),
    Check("plain_values", "generate"),
    Check("retry", "retry"),
    Check("empty_result", "result", rc.empty_result),
    Check("ranking_order", "result", rc.ranking_order),
    Check("ranking_limit", "result", rc.ranking_limit),
    Check("raw_rows", "result", rc.raw_rows),
    Check("detail_aggregated", "result", rc.detail_aggregated),
    Check("all_null", "result", rc.all_null),
    Check("glossary_term", "coverage", _terms),
    Check("value_filter", "coverage", _values),
    Check("time_window", "coverage", _windows),
    Check("copied_literal", "coverage", _copied),
    Check("per_group", "coverage", _grouping),
    Check("followup_conditions", "coverage", _followup),
    Check("model_judge", "judge"),
)}  # fmt: skip


class UnknownCheck(InputError):
    code = "unknown_check"

    def __init__(self, names: Iterable[str]):
        listed, known = ", ".join(sorted(names)), ", ".join(CHECKS)
        super().__init__(f"Unknown accuracy check: {listed} (known: {known}).",
                         f"未知的准确性检查：{listed}（可用：{known}）。")


def require_known(names: Iterable[str]) -> frozenset[str]:
    names = frozenset(names)
    unknown = names - set(CHECKS)
    if unknown:
        raise UnknownCheck(unknown)
    return names


def feedback(check_id: str, finding: dict) -> str:
    return render(f"check_{check_id}", **finding).strip()


def run_checks(answer: Answer, *, disabled: frozenset[str] = frozenset(), compiled: bool = False,
               ) -> tuple[str, list[str]]:
    """(feedback for the model, ids of the checks that fired); ('', []) when the answer passes.

    The result rules come first and the first that fails speaks alone; then, unless a compiled plan
    answered, every coverage miss is listed."""
    enabled = [c for c in CHECKS.values() if c.find is not None and c.id not in disabled]
    for check in (c for c in enabled if c.stage == "result"):
        found = check.find(answer)
        if found:
            return feedback(check.id, found[0]), [check.id]
    if compiled:
        return "", []
    parts, fired = [], []
    for check in (c for c in enabled if c.stage == "coverage"):
        found = check.find(answer)
        if found:
            fired.append(check.id)
            parts += [feedback(check.id, f) for f in found]
    return " ".join(parts), fired
