"""The answer cache (agent/answer_cache.py): a repeated first question is answered without the graph, with the
scripted fake model counting the calls, against the real demo SQLite database, the real app store and a real
Redis shared by two HTTP servers."""

from __future__ import annotations

import os

import pytest
import redis

from fixtures_server import CITY_QUESTION, CITY_TOP, stream_events
from wenshu.agent.answer_cache import normalize_question
from wenshu.contracts import AgentRequest

REGIONS = ("SELECT r.region_name AS 大区, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id=c.city_id "
           "JOIN regions r ON c.region_id=r.region_id WHERE o.status = 1 GROUP BY r.region_name")
EAST = REGIONS.replace("GROUP BY", "AND r.region_name = '华东' GROUP BY")


@pytest.fixture
def cached_agent(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    return Agent(settings.model_copy(update={"answer_cache_ttl_s": 3600}), store,
                 models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


def test_normalize_question():
    assert normalize_question("  Top 10\tCITIES  by orders?? ") == "top 10 cities by orders"
    assert normalize_question("各大区的订单量。") == normalize_question("各大区的订单量！") == "各大区的订单量"
    assert normalize_question("Ｔop 10") == "Ｔop 10"  # only ASCII letters fold


def test_a_repeated_first_question_comes_from_the_cache_and_follow_ups_run_the_graph(cached_agent, fake_model,
                                                                                       store):
    fake_model.queue(REGIONS)
    first = cached_agent.ask(AgentRequest(message="各大区的订单量", user_id="ann"))
    assert first.error is None and not first.cached and len(fake_model.calls) == 1

    events = []
    again = cached_agent.ask(AgentRequest(message=" 各大区的订单量？", user_id="bob"), on_event=events.append)
    assert len(fake_model.calls) == 1  # no model call: the script is empty, a call would fail the answer
    assert again.error is None and again.cached and again.usage.llm_calls == 0
    assert (again.sql, again.rows, again.answer) == (first.sql, first.rows, first.answer)
    assert [(t.node, t.status) for t in again.trace] == [("answer_cache", "cached")]
    assert again.conversation_id != first.conversation_id and again.message_id is not None
    assert [(e.type, e.node, e.status) for e in events if e.type == "node"] == [
        ("node", "answer_cache", "started"), ("node", "answer_cache", "cached")]
    assert {"sql", "result", "answer"} <= {e.type for e in events}
    stored = store.conversations.messages(again.conversation_id)  # its own conversation, the turn kept
    assert [(m.role, m.content) for m in stored] == [("user", "各大区的订单量？"), ("assistant", again.answer)]
    assert stored[1].sql == first.sql and stored[1].payload["cached"] is True
    assert [c.id for c in store.conversations.list("bob")] == [again.conversation_id]
    audit = store.audit.query(limit=1)[0]
    assert (audit["conversation_id"], audit["user_id"], audit["cached"]) == (again.conversation_id, "bob", True)
    assert audit["sql"] == first.sql and audit["status"] == "ok"

    # a follow-up in the cached answer's conversation runs the graph, building on the cached turn
    fake_model.queue(EAST)
    follow = cached_agent.ask(AgentRequest(message="只看华东区", conversation_id=again.conversation_id, user_id="bob"))
    assert follow.error is None and not follow.cached and follow.rows[0][0] == "华东" and len(fake_model.calls) == 2
    assert REGIONS in fake_model.calls[1][-1].content  # the earlier turn's SQL is in the prompt
    # the same first question asked again inside a conversation is a follow-up too: never from the cache
    fake_model.queue(REGIONS)
    inside = cached_agent.ask(AgentRequest(message="各大区的订单量", conversation_id=first.conversation_id,
                                           user_id="ann"))
    assert inside.error is None and len(fake_model.calls) == 3 and not from_cache(inside)


def test_a_cached_answer_stopped_midway_keeps_its_question_and_a_stopped_reply(cached_agent, fake_model, store):
    """A hit stores its question with its answer, in one transaction; stopped before that, the question is stored
    all the same, with the "(stopped)" reply and a stopped audit entry, as for a stopped graph answer."""
    from wenshu.errors import RunCancelled

    fake_model.queue(REGIONS)
    assert cached_agent.ask(AgentRequest(message="各大区的订单量")).error is None

    def stop(event):
        if event.type == "answer":
            raise RunCancelled()

    cid = store.conversations.create("carol", "demo")
    with pytest.raises(RunCancelled):
        cached_agent.ask(AgentRequest(message="各大区的订单量", conversation_id=cid, user_id="carol"), on_event=stop)
    assert [(m.role, m.content, m.status) for m in store.conversations.messages(cid)] == [
        ("user", "各大区的订单量", "ok"), ("assistant", "(stopped)", "stopped")]
    audit = store.audit.query(limit=1)[0]
    assert (audit["conversation_id"], audit["status"], audit["cached"]) == (cid, "stopped", False)
    again = cached_agent.ask(AgentRequest(message="各大区的订单量", user_id="carol"))
    assert from_cache(again) and len(fake_model.calls) == 1  # the entry is still there for the next asker


def from_cache(resp) -> bool:
    """Answered by the answer cache (`cached` alone also says the result cache spared the database call)."""
    return resp.error is None and resp.cached and [t.node for t in resp.trace] == ["answer_cache"]


def test_thumbs_down_new_data_and_a_new_semantic_model_miss(cached_agent, fake_model, home, store):
    fake_model.default = CITY_TOP
    first = cached_agent.ask(AgentRequest(message=CITY_QUESTION))
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 1

    cached_agent.feedback(first.conversation_id, "down")
    assert not from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 2
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 2

    demo = home / "data" / "demo.sqlite"
    os.utime(demo, (demo.stat().st_atime, demo.stat().st_mtime + 60))  # the data changed: a new data version
    again = cached_agent.ask(AgentRequest(message=CITY_QUESTION))
    assert again.error is None and not from_cache(again) and len(fake_model.calls) == 3
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION)))

    store.semantic.save("demo", store.semantic.get("demo").body)  # a new semantic model version
    assert not from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 4


def test_a_glossary_edit_or_an_approved_pair_is_answered_afresh(cached_agent, fake_model, store):
    fake_model.default = CITY_TOP
    cached_agent.ask(AgentRequest(message=CITY_QUESTION))
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 1
    term = store.glossary.list("demo")[0]
    store.glossary.put("demo", term.term, term.definition + " (corrected)", kind=term.kind, sql=term.sql,
                       synonyms=term.synonyms, tables=term.tables)  # an edit in place: same id, same count
    assert not from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 2
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION)))
    pair = store.examples.add("demo", "各城市下单数量排行", CITY_TOP, status="pending")
    assert from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION)))  # a pending pair changes no answer
    store.examples.set_status(pair.id, "active")
    assert not from_cache(cached_agent.ask(AgentRequest(message=CITY_QUESTION))) and len(fake_model.calls) == 3


def test_two_servers_share_answers_through_redis(server_factory, redis_url, fake_model):
    from wenshu.providers.fake import ScriptedChatModel

    other = ScriptedChatModel(default=CITY_TOP)
    a = server_factory(redis_url=redis_url, answer_cache_ttl_s=3600)
    b = server_factory(model=other, redis_url=redis_url, answer_cache_ttl_s=3600)  # the same app store (home)
    first = a.client().post("/api/ask", json={"message": CITY_QUESTION}).json()
    assert first["error"] is None and len(fake_model.calls) == 1

    http = b.client()
    cid = http.post("/api/conversations", json={}).json()["id"]
    events = stream_events(http, cid, CITY_QUESTION)
    assert other.calls == []  # b answered from a's answer, through Redis
    nodes = [d for kind, d in events if kind == "node" and d["node"] != "queue"]
    assert [(d["node"], d["status"], d.get("outcome")) for d in nodes] == [
        ("answer_cache", "started", None), ("answer_cache", "finished", "cached")]
    answer = next(d["response"] for kind, d in events if kind == "answer")
    assert answer["cached"] is True and answer["rows"] == first["rows"] and answer["conversation_id"] == cid
    assert ("sql", {"sql": first["sql"]}) in events and events[-1][1]["status"] == "ok"
    with b.state.store.engine.connect() as conn:  # not in the app store's table: in Redis
        assert conn.exec_driver_sql("SELECT count(*) FROM result_cache").scalar() == 0
    client = redis.Redis.from_url(redis_url)
    try:
        assert len(client.keys("cache:*")) == 2  # the result and the answer
    finally:
        client.close()
