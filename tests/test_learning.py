"""Learning from use, end to end with the scripted fake model against the real demo database.

A turn whose first SQL is refused by validation and whose retry succeeds is stored as a pending
pair; it is not shown to the model until approved, and a thumbs-down rejects it for good.
"""

from __future__ import annotations

import pytest

from wenshu.agent.service import Agent
from wenshu.contracts import AgentRequest
from wenshu.errors import InputError, NotFound
from wenshu.knowledge.examples import LibraryExamples
from wenshu.knowledge.recall import FullSchemaRecall
from wenshu.providers.base import ModelClient

GOOD = ("SELECT c.city_name AS 城市, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id = c.city_id "
        "WHERE o.status = 1 GROUP BY c.city_name ORDER BY 订单量 DESC LIMIT 5")
BAD = GOOD.replace("c.city_name AS", "c.town AS")  # unknown column: refused by validation
QUESTION = "哪几个城市的已支付订单最多"
SIMILAR = "已支付订单最多的是哪几个城市"


@pytest.fixture
def library_agent(settings, store, fake_model):
    recall = FullSchemaRecall(LibraryExamples(store.examples), k=2)
    return Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"),
                 recall=recall)


def last_prompt(fake_model) -> str:
    return fake_model.calls[-1][-1].content


def served(question: str, fake_model) -> bool:
    """Whether the last prompt showed `question` as a few-shot example (not as the question asked)."""
    return f"Question: {question}\nSQL: " in last_prompt(fake_model)


def ask(agent, fake_model, question, *answers, cid=None):
    fake_model.queue(*answers)
    resp = agent.ask(AgentRequest(message=question, conversation_id=cid))
    assert resp.error is None, resp.error
    return resp


def test_retry_success_is_learned_pending_then_served_after_approval(library_agent, fake_model, store):
    resp = ask(library_agent, fake_model, QUESTION, BAD, GOOD)
    assert ("validate", "error") in [(t.node, t.status) for t in resp.trace]
    [pending] = store.examples.list("demo", status="pending")
    assert pending.question == QUESTION and pending.source == "learned"
    assert pending.conversation_id == resp.conversation_id and pending.sql == resp.sql
    assert pending.query_type == "top_n" and pending.skeleton

    ask(library_agent, fake_model, SIMILAR, GOOD)
    assert not served(QUESTION, fake_model)  # pending: never served

    store.examples.set_status(pending.id, "active")
    ask(library_agent, fake_model, SIMILAR, GOOD)
    assert served(QUESTION, fake_model)
    assert store.examples.list("demo", status="pending") == []


def test_thumbs_down_rejects_the_learned_pair_and_it_is_not_learned_again(library_agent, fake_model, store):
    resp = ask(library_agent, fake_model, QUESTION, BAD, GOOD)
    up = library_agent.feedback(resp.conversation_id, "up")
    assert up["rejected_examples"] == [] and len(store.examples.list("demo", status="pending")) == 1
    down = library_agent.feedback(resp.conversation_id, "down")
    [rejected] = store.examples.list("demo", status="rejected")
    assert down["rejected_examples"] == [rejected.id] and rejected.question == QUESTION
    ask(library_agent, fake_model, QUESTION + "？", BAD, GOOD)
    assert store.examples.list("demo", status="pending") == []  # known question: not learned twice
    assert not served(QUESTION, fake_model) and not served(QUESTION + "？", fake_model)
    with pytest.raises(InputError):
        library_agent.feedback(resp.conversation_id, "meh")
    with pytest.raises(NotFound):
        library_agent.feedback("no-such-conversation", "down")
    with pytest.raises(NotFound):
        library_agent.feedback(resp.conversation_id, "down", user_id="someone-else")


def test_thumbs_down_leaves_approved_pairs_alone(library_agent, fake_model, store):
    resp = ask(library_agent, fake_model, QUESTION, BAD, GOOD)
    [pending] = store.examples.list("demo", status="pending")
    store.examples.set_status(pending.id, "active")
    assert library_agent.feedback(resp.conversation_id, "down")["rejected_examples"] == []
    assert store.examples.get(pending.id).status == "active"


def test_first_try_successes_and_followups_are_not_learned(library_agent, fake_model, store):
    before = store.examples.count("demo")
    first = ask(library_agent, fake_model, QUESTION, GOOD)
    assert store.examples.count("demo") == before
    follow = "只看华东区"
    region = GOOD.replace("WHERE o.status = 1", "JOIN regions r ON r.region_id = c.region_id "
                          "WHERE o.status = 1 AND r.region_name = '华东'")
    ask(library_agent, fake_model, follow, region.replace("r.region_name", "r.regionname"), region,
        cid=first.conversation_id)
    assert store.examples.count("demo") == before
