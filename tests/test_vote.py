"""Self-consistency voting over SQL candidates, with the scripted model on the real demo database."""

from __future__ import annotations

import pytest

from wenshu.agent.vote import choose, signature
from wenshu.contracts import AgentRequest

BY_CHANNEL = "SELECT channel, COUNT(*) AS n FROM orders GROUP BY channel"
BY_CHANNEL_AGAIN = "SELECT COUNT(*) AS n, channel FROM orders GROUP BY channel ORDER BY n"  # same rows
PAID_BY_CHANNEL = "SELECT channel, COUNT(*) AS n FROM orders WHERE status = 1 GROUP BY channel"


@pytest.fixture
def voting_agent(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    models = ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake")
    return Agent(settings.model_copy(update={"sql_candidates": 3}), store, models=models)


def generate_detail(resp) -> str:
    return next(t.detail for t in resp.trace if t.node == "generate")


def test_signature_ignores_row_and_column_order():
    assert signature([("a", 1), ("b", 2.0)], ["x", "y"]) == signature([(2, "b"), (1, "a")], ["y", "x"])
    assert signature([("a", 1)], ["x", "y"]) != signature([("a", 2)], ["x", "y"])


def test_choose_stops_early_and_the_greedy_candidate_wins_ties():
    drawn = []

    def sample(i):
        drawn.append(i)
        return {1: "B", 2: "C"}[i]

    assert choose("A", sample, {"A": "x", "B": "x"}.get, 3)[0] == "A" and drawn == [1]
    drawn.clear()
    assert choose("A", sample, {"A": "x", "B": "y", "C": "z"}.get, 3)[0] == "A" and drawn == [1, 2]
    assert choose("A", sample, {"A": "x", "B": "y", "C": "y"}.get, 3)[0] == "B"
    assert choose("A", sample, {}.get, 3)[0] == "A"  # nothing ran: keep the greedy one for the guard to explain


def test_agreeing_candidates_stop_after_one_sample(voting_agent, fake_model):
    fake_model.queue(BY_CHANNEL, BY_CHANNEL_AGAIN)
    resp = voting_agent.ask(AgentRequest(message="各渠道有多少条订单记录"))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL)
    assert resp.usage.llm_calls == 2 and "'candidates': 2" in generate_detail(resp)


def test_the_majority_result_wins_over_the_greedy_one(voting_agent, fake_model):
    fake_model.queue(BY_CHANNEL, PAID_BY_CHANNEL, PAID_BY_CHANNEL)
    resp = voting_agent.ask(AgentRequest(message="各渠道有多少条已支付的订单记录"))
    assert resp.error is None and resp.sql.startswith(PAID_BY_CHANNEL)
    assert resp.usage.llm_calls == 3


def test_a_greedy_sql_that_cannot_run_is_replaced_without_a_retry_round(voting_agent, fake_model):
    fake_model.queue("DELETE FROM orders", BY_CHANNEL, BY_CHANNEL)
    resp = voting_agent.ask(AgentRequest(message="各渠道有多少条订单记录"))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL) and resp.row_count == 3
    assert ("validate", "error") not in [(t.node, t.status) for t in resp.trace]


def test_the_vote_runs_its_candidates_through_the_result_cache(voting_agent, fake_model):
    """The candidates go through the one checked run path, so the winner's rows come from the cache the
    vote filled: execute does not run the same statement again."""
    fake_model.queue(BY_CHANNEL, BY_CHANNEL_AGAIN)
    resp = voting_agent.ask(AgentRequest(message="各渠道有多少条订单记录"))
    assert resp.error is None and resp.cached
    assert next(t for t in resp.trace if t.node == "execute").status == "cached"
