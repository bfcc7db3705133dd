"""A question about something the database does not hold gets "no data about X" and the closest
tables, before any SQL is written (agent/scope.py), on the real demo catalog and embedder."""

from __future__ import annotations

import pytest

from wenshu.agent.scope import off_topic, subject_words
from wenshu.agent.vocabulary import Vocabulary
from wenshu.contracts import AgentRequest

AWAY_EN = "How many goals did the striker score this season?"
AWAY_ZH = "哪家医院的病人最多？"


def test_every_sign_must_point_away():
    words = Vocabulary(frozenset({"singer"}))
    assert off_topic(AWAY_EN, 0.1, words, floor=0.24, tables=["singer", "stadium"]).words == ["goals", "striker",
                                                                                              "score", "season"]
    assert off_topic(AWAY_EN, 0.3, words, floor=0.24) is None  # close enough in meaning
    assert off_topic(AWAY_EN, None, words, floor=0.24) is None  # no embeddings: nothing to judge by
    assert off_topic("How many singers scored?", 0.1, words, floor=0.24) is None  # names the catalog
    assert off_topic(AWAY_EN, 0.1, words, floor=0.24, values=[{"value": "x"}]) is None  # a stored value
    assert subject_words(AWAY_ZH) == ["哪家医院的病人最多"]
    assert subject_words("上个月仓库的库存是多少？") == ["上个月仓库的库存"]


@pytest.mark.parametrize(("question", "said"), [(AWAY_EN, "no data about goals, striker"), (AWAY_ZH, "没有关于")])
def test_the_agent_answers_no_data_without_writing_sql(agent, fake_model, question, said):
    resp = agent.ask(AgentRequest(message=question))
    assert resp.error is not None and resp.error.code == "no_matching_data"
    assert said in resp.answer and resp.sql is None and not fake_model.calls  # no model call at all
    assert [t.node for t in resp.trace][-1] == "nodata"
    assert any(t.node == "recall" and t.checks == ["off_topic"] for t in resp.trace)


def test_how_much_money_over_a_period_is_the_datas_own_question():
    from wenshu.agent.scope import asks_money_of_a_period
    from wenshu.catalog import Catalog, ColumnInfo, TableInfo
    from wenshu.semantic.library import bundled_text
    from wenshu.semantic.model import parse_model

    orders = TableInfo("orders", columns=[ColumnInfo("order_date", "DATE"), ColumnInfo("pay_amount", "REAL")])
    catalog, model = Catalog("demo", "sqlite", [orders]), parse_model(bundled_text("demo"))
    assert asks_money_of_a_period("今年到现在一共卖了多少钱？", catalog, model)  # no entry's word, yet the shop's sales
    assert not asks_money_of_a_period("我的加密钱包余额是多少钱？", catalog, model)  # money, but no period
    assert not asks_money_of_a_period("今年夏天的最高气温是多少度？", catalog, model)  # a period, but no money
    assert not asks_money_of_a_period("今年到现在一共卖了多少钱？", catalog, None)  # no semantic model: no measure of money


def test_the_switch_turns_the_check_off(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    fake_model.queue("SELECT COUNT(*) AS n FROM orders")
    agent = Agent(settings.model_copy(update={"disabled_checks": ["off_topic"]}), store,
                  models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))  # fmt: skip
    resp = agent.ask(AgentRequest(message=AWAY_EN))
    assert resp.error is None and resp.sql


def test_the_scope_bench_counts_false_and_true_refusals(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "scope.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "scope", "--sets", "demo_dev", "--out", str(out)],
                          cwd=root, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {(r["set"], r["lang"]): r for r in json.loads(out.read_text())["rows"]}
    assert rows[("demo_dev", "all")]["refused"] == 0  # no answerable first turn is turned away
    off = rows[("off_topic", "all")]
    assert off["questions"] == 24 and off["refused"] >= 20  # 24 off-topic questions x the one database
    assert rows[("off_topic", "zh")]["questions"] == 12
