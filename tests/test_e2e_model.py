"""End to end with the real embedded model (Qwen2.5-Coder-1.5B, llama.cpp) on demo questions.

Seven turns (five questions and a two-turn follow-up) run once through the whole pipeline, with the
product's defaults (business questions through the semantic plan path first, free SQL for the rest); each
answer's rows are compared with gold SQL over the same demo database, allowing extra label columns
(see bench.scoring.contains_result). Accuracy itself is measured by `python -m bench sql --set demo`;
here the bar is that the real model path works end to end: every turn answers without a crash, and
most match the gold result. `make test` installs the model first; outside it the test is skipped
unless WENSHU_REQUIRE_MODEL or CI is set.
"""

from __future__ import annotations

import sqlite3
from importlib.resources import files

import pytest
import yaml

from bench.scoring import contains_result, is_ordered
from wenshu.contracts import AgentRequest

pytestmark = pytest.mark.model

GOLD = {g["id"]: g for g in yaml.safe_load(files("wenshu.demo.data").joinpath("gold.yaml").read_text("utf-8"))}
TURNS = [
    ("gold-members", "How many customers are gold members?", "SELECT COUNT(*) FROM customers WHERE member_level = 2", None),
    ("paid-orders", "How many paid orders were there last month?",
     "SELECT COUNT(*) FROM orders WHERE status = 1 AND order_date >= date('now','start of month','-1 month') "
     "AND order_date < date('now','start of month')", None),
    ("refund-amount", "What was the total refund amount last month?",
     "SELECT ROUND(SUM(refund_amount), 2) FROM refunds WHERE refund_date >= date('now','start of month','-1 month') "
     "AND refund_date < date('now','start of month')", None),
    *[(g, GOLD[g]["question"], GOLD[g]["sql"], None) for g in ("demo-016", "demo-009", "demo-011")],
    ("demo-012", GOLD["demo-012"]["question"], GOLD["demo-012"]["sql"], "demo-011"),
]  # fmt: skip


@pytest.fixture(scope="module")
def answers(real_model_path, tmp_path_factory, demo_db_file):
    import shutil

    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.settings import Settings

    home = tmp_path_factory.mktemp("e2e-home")
    (home / "data").mkdir()
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    settings = Settings(home=home, model_path=real_model_path, llm_provider="embedded", semantic_path=True)
    store = open_store(settings)
    db = ensure_demo(settings, store)
    agent = Agent(settings, store)
    out, conversations = {}, {}
    for key, question, gold_sql, follows in TURNS:
        resp = agent.ask(AgentRequest(message=question, conversation_id=conversations.get(follows)))
        conversations[key] = resp.conversation_id
        with sqlite3.connect(db) as conn:
            expected = conn.execute(gold_sql).fetchall()
        match = resp.error is None and contains_result([tuple(r) for r in resp.rows], expected, is_ordered(gold_sql))
        out[key] = (question, resp, match)
    for key, (question, resp, match) in out.items():
        print(f"{'OK ' if match else 'BAD'} {key}: {question}\n    {' '.join((resp.sql or '-').split())}")
    return out


def test_every_turn_answers(answers):
    for question, resp, _ in answers.values():
        assert resp.answer and (resp.usage.llm_calls >= 1 or resp.plan), question  # a plan edit needs no model
        assert resp.error is None or resp.error.code == "unanswerable", (question, resp.error)
    assert sum(resp.error is None for _, resp, _ in answers.values()) >= len(TURNS) - 1


def test_business_questions_take_the_plan_path(answers):
    planned = [key for key, (_, resp, _) in answers.items() if resp.plan]
    assert len(planned) >= 2, f"only {planned} were answered by a plan"


def test_most_answers_match_gold(answers):
    matched = [key for key, (_, _, ok) in answers.items() if ok]
    assert len(matched) >= 5, f"only {matched} matched the gold result"


def test_english_answers_are_in_english_and_follow_ups_share_the_conversation(answers):
    english = answers["paid-orders"][1].answer
    assert english and not any("\u4e00" <= ch <= "\u9fff" for ch in english), english
    assert answers["demo-012"][1].conversation_id == answers["demo-011"][1].conversation_id
