"""End to end with the real embedded model (Qwen2.5-Coder-1.5B, llama.cpp) on demo questions.

Each answer's rows are compared with gold SQL over the same demo database. `make test` installs the
model first; outside it the test is skipped unless WENSHU_REQUIRE_MODEL or CI is set.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from importlib.resources import files

import pytest
import yaml

from wenshu.contracts import AgentRequest

pytestmark = pytest.mark.model

GOLD = {g["id"]: g for g in yaml.safe_load(files("wenshu.demo.data").joinpath("gold.yaml").read_text("utf-8"))}
ENGLISH = [
    ("How many customers are gold members?", "SELECT COUNT(*) FROM customers WHERE member_level = 2"),
    ("How many paid orders were there last month?",
     "SELECT COUNT(*) FROM orders WHERE status = 1 AND order_date >= date('now','start of month','-1 month') "
     "AND order_date < date('now','start of month')"),
    ("What was the total refund amount last month?",
     "SELECT ROUND(SUM(refund_amount), 2) FROM refunds WHERE refund_date >= date('now','start of month','-1 month') "
     "AND refund_date < date('now','start of month')"),
]


def _canon(rows):
    return Counter(tuple(sorted((round(v, 2) if isinstance(v, float) else v for v in r), key=repr)) for r in rows)


@pytest.fixture(scope="module")
def real_agent(real_model_path, tmp_path_factory, demo_db_file):
    import shutil

    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.settings import Settings

    home = tmp_path_factory.mktemp("e2e-home")
    (home / "data").mkdir()
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    settings = Settings(home=home, model_path=real_model_path, llm_provider="embedded")
    store = open_store(settings)
    db = ensure_demo(settings, store)
    return Agent(settings, store), db


def _check(agent_db, question, gold_sql, conversation_id=None):
    agent, db = agent_db
    resp = agent.ask(AgentRequest(message=question, conversation_id=conversation_id))
    assert resp.error is None, f"{question}: {resp.error} / {resp.answer}"
    with sqlite3.connect(db) as conn:
        expected = conn.execute(gold_sql).fetchall()
    assert _canon(resp.rows) == _canon(expected), f"{question}\nSQL: {resp.sql}\ngot {resp.rows[:5]}"
    assert resp.answer and resp.usage.llm_calls >= 1
    return resp


@pytest.mark.parametrize("gold_id", ["demo-007", "demo-009"])
def test_chinese_questions(real_agent, gold_id):
    _check(real_agent, GOLD[gold_id]["question"], GOLD[gold_id]["sql"])


@pytest.mark.parametrize("question,gold_sql", ENGLISH, ids=["gold-members", "paid-orders", "refund-amount"])
def test_english_questions(real_agent, question, gold_sql):
    resp = _check(real_agent, question, gold_sql)
    assert resp.answer.startswith("Result")


def test_followup_builds_on_the_previous_sql(real_agent):
    first, second = GOLD["demo-011"], GOLD["demo-012"]
    assert second["followup_of"] == "demo-011"
    one = _check(real_agent, first["question"], first["sql"])
    two = _check(real_agent, second["question"], second["sql"], conversation_id=one.conversation_id)
    assert two.conversation_id == one.conversation_id
    assert "status = 1" in two.sql.replace("status=1", "status = 1")
