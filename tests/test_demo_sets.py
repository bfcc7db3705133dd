"""The demo few-shot library (examples.yaml) and evaluation set (gold.yaml) against the demo DB.

Every SQL must run on a freshly built demo database and return meaningful rows: at least one row,
no NULL (a NULL would mean a missing period in a comparison, or a label without a code), and not
only zeros (an empty count).
The SQL only uses dates relative to 'now', so it is also checked on databases built for other
days, with 'now' replaced by that day.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from contextlib import closing
from datetime import date
from pathlib import Path

import pytest
import yaml

import wenshu.demo
from wenshu.demo.generate import build_demo_db

DATA_DIR = Path(wenshu.demo.__file__).parent / "data"
QUERY_TYPES = {"detail", "aggregate", "trend", "share", "top_n", "compare"}
HAN = re.compile(r"[\u4e00-\u9fff]")
ID_FORMAT = re.compile(r"^demo-\d{3}$")
DATE_LITERAL = re.compile(r"'\d{4}-\d{2}")
# Other days the sets must hold on: a Sunday that is the 1st of a month after the Spring Festival
# dip, and a New Year's Day (this year is one day old, last year complete).
OTHER_DAYS = (date(2026, 3, 1), date(2028, 1, 1))


def _load(name: str) -> list[dict]:
    data = yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8"))
    assert isinstance(data, list), f"{name} must be a YAML list"
    return data


EXAMPLES = _load("examples.yaml")
GOLD = _load("gold.yaml")
ALL_SQL = [(f"example-{i:02d}", e["sql"]) for i, e in enumerate(EXAMPLES, 1)] + [(g["id"], g["sql"]) for g in GOLD]


def _norm_question(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s\W_]+", "", text)


def _norm_sql(sql: str) -> str:
    return " ".join(sql.split()).rstrip(";").lower()


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


@pytest.fixture(scope="module")
def demo_conn(demo_db_file):
    """Read-only connection to the demo DB built once per session for today (conftest.demo_db_file)."""
    with closing(_connect(demo_db_file)) as conn:
        yield conn


def _check_rows(conn: sqlite3.Connection, name: str, sql: str) -> list[tuple]:
    rows = conn.execute(sql).fetchall()
    assert rows, f"{name}: no rows"
    nulls = [row for row in rows if any(v is None for v in row)]
    assert not nulls, f"{name}: NULL in result, e.g. {nulls[0]}"
    assert any(v not in (0, "") for row in rows for v in row), f"{name}: only zeros: {rows[:3]}"
    return rows


# -- examples.yaml ------------------------------------------------------------------------------

def test_examples_fields_and_balance():
    assert len(EXAMPLES) >= 24
    for e in EXAMPLES:
        assert set(e) == {"question", "sql", "query_type"}, e
        assert isinstance(e["question"], str) and e["question"].strip()
        assert isinstance(e["sql"], str) and e["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
        assert e["query_type"] in QUERY_TYPES, e
    zh = [e for e in EXAMPLES if HAN.search(e["question"])]
    assert len(zh) * 2 == len(EXAMPLES), "half of the examples must be Chinese, half English"
    assert {e["query_type"] for e in EXAMPLES} == QUERY_TYPES
    questions = [_norm_question(e["question"]) for e in EXAMPLES]
    assert len(set(questions)) == len(questions), "duplicate example questions"


# -- gold.yaml ----------------------------------------------------------------------------------

def test_gold_fields():
    for g in GOLD:
        required = {"id", "question", "sql", "lang", "query_type"}
        assert required <= set(g) <= required | {"followup_of"}, g
        assert ID_FORMAT.match(g["id"]), g["id"]
        assert isinstance(g["question"], str) and g["question"].strip()
        assert isinstance(g["sql"], str) and g["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
        assert g["query_type"] in QUERY_TYPES, g["id"]
        assert g["lang"] in {"zh", "en"}, g["id"]
        if g["lang"] == "zh":
            assert HAN.search(g["question"]), g["id"]
        else:
            assert re.match(r"[A-Za-z]", g["question"]), g["id"]


def test_gold_ids_unique_and_questions_distinct():
    ids = [g["id"] for g in GOLD]
    assert len(set(ids)) == len(ids), "duplicate gold ids"
    questions = [_norm_question(g["question"]) for g in GOLD]
    assert len(set(questions)) == len(questions), "duplicate gold questions"


def test_gold_counts():
    zh = [g for g in GOLD if g["lang"] == "zh"]
    en = [g for g in GOLD if g["lang"] == "en"]
    followups = [g for g in GOLD if "followup_of" in g]
    assert len(GOLD) >= 64
    assert len(zh) >= 40
    assert len(en) >= 20
    assert len(followups) >= 12
    assert {g["query_type"] for g in GOLD} == QUERY_TYPES


def test_gold_followups_point_to_an_earlier_first_turn():
    seen: dict[str, dict] = {}
    for g in GOLD:
        if "followup_of" in g:
            first = seen.get(g["followup_of"])
            assert first is not None, f"{g['id']}: followup_of {g['followup_of']!r} is not an earlier id"
            assert "followup_of" not in first, f"{g['id']}: must follow a first turn"
            assert first["lang"] == g["lang"], g["id"]
            assert _norm_sql(first["sql"]) != _norm_sql(g["sql"]), f"{g['id']}: same SQL as its first turn"
        seen[g["id"]] = g


def test_gold_differs_from_examples():
    example_questions = {_norm_question(e["question"]) for e in EXAMPLES}
    example_sql = {_norm_sql(e["sql"]) for e in EXAMPLES}
    for g in GOLD:
        assert _norm_question(g["question"]) not in example_questions, f"{g['id']}: question is an example"
        assert _norm_sql(g["sql"]) not in example_sql, f"{g['id']}: SQL is copied from an example"


# -- the SQL on the demo database ---------------------------------------------------------------

@pytest.mark.parametrize("sql", [s for _, s in ALL_SQL], ids=[n for n, _ in ALL_SQL])
def test_sql_uses_only_relative_dates(sql):
    assert not DATE_LITERAL.search(sql), "hard-coded date: use date('now', ...) modifiers"


@pytest.mark.parametrize("sql", [s for _, s in ALL_SQL], ids=[n for n, _ in ALL_SQL])
def test_sql_returns_rows_today(demo_conn, sql, request):
    _check_rows(demo_conn, request.node.callspec.id, sql)


@pytest.mark.parametrize("day", OTHER_DAYS, ids=str)
def test_sql_returns_rows_on_other_days(tmp_path, day):
    path = build_demo_db(tmp_path / "demo.sqlite", end_date=day)
    with closing(_connect(path)) as conn:
        for name, sql in ALL_SQL:
            _check_rows(conn, f"{name} on {day}", sql.replace("'now'", f"'{day.isoformat()}'"))
