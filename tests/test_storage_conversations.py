"""Conversations: lifecycle, user isolation, titles, messages and recent turns."""

from __future__ import annotations

import pytest

from wenshu.errors import NotFound
from wenshu.storage.conversations import Turn
from wenshu.storage.db import open_store


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path / 'app.db'}"


@pytest.fixture
def store(url):
    s = open_store(url)
    yield s
    s.close()


def test_lifecycle(store):
    convs = store.conversations
    cid = convs.create("alice", "demo")
    assert len(cid) == 32 and int(cid, 16) >= 0
    rec = convs.get(cid)
    assert (rec.user_id, rec.datasource, rec.title) == ("alice", "demo", None)
    assert rec.created_at == rec.updated_at and rec.created_at.tzinfo is not None

    assert convs.rename(cid, "  Sales   by city ")
    assert convs.get(cid).title == "Sales by city"

    convs.add_message(cid, "user", "hi")
    assert len(convs.messages(cid)) == 1
    assert convs.delete(cid)
    assert convs.get(cid) is None
    assert convs.messages(cid) == []  # cascaded
    assert not convs.delete(cid)
    assert not convs.rename(cid, "x")


def test_create_with_title(store):
    cid = store.conversations.create("alice", None, title="Weekly report")
    assert store.conversations.get(cid).title == "Weekly report"
    assert store.conversations.get(cid).datasource is None


def test_isolation_by_user(store):
    convs = store.conversations
    a = convs.create("alice", "demo")
    b = convs.create("bob", "demo")
    assert convs.get(a, user_id="alice").id == a
    assert convs.get(a, user_id="bob") is None
    assert convs.get("missing") is None
    assert [c.id for c in convs.list("alice")] == [a]
    assert [c.id for c in convs.list("bob")] == [b]
    assert convs.list("carol") == []
    assert not convs.rename(a, "stolen", user_id="bob")
    assert not convs.delete(a, user_id="bob")
    assert convs.get(a).title is None
    assert convs.delete(a, user_id="alice")


def test_list_newest_activity_first_with_limit(store):
    convs = store.conversations
    ids = [convs.create("alice", "demo") for _ in range(4)]
    assert [c.id for c in convs.list("alice")] == ids[::-1]
    convs.add_message(ids[0], "user", "bump")
    listed = [c.id for c in convs.list("alice")]
    assert listed[0] == ids[0]
    assert [c.id for c in convs.list("alice", limit=2)] == listed[:2]


def test_add_message_touches_and_returns_ids(store):
    convs = store.conversations
    cid = convs.create("alice", "demo")
    before = convs.get(cid).updated_at
    m1 = convs.add_message(cid, "user", "how many orders?")
    m2 = convs.add_message(
        cid,
        "assistant",
        "42 orders.",
        sql="SELECT count(*) FROM orders",
        result_summary="1 row: 42",
        status="ok",
        payload={"columns": ["n"], "rows": [[42]]},
    )
    assert m2 > m1
    assert convs.get(cid).updated_at > before
    msgs = convs.messages(cid)
    assert [(m.role, m.content) for m in msgs] == [
        ("user", "how many orders?"),
        ("assistant", "42 orders."),
    ]
    assert msgs[1].sql == "SELECT count(*) FROM orders"
    assert msgs[1].payload == {"columns": ["n"], "rows": [[42]]}
    assert msgs[0].payload is None and msgs[0].status == "ok"


def test_add_message_validation(store):
    cid = store.conversations.create("alice", "demo")
    with pytest.raises(ValueError):
        store.conversations.add_message(cid, "system", "x")
    with pytest.raises(ValueError):
        store.conversations.add_message(cid, "assistant", "x", status="weird")
    with pytest.raises(NotFound) as err:
        store.conversations.add_message("nope", "user", "x")
    assert err.value.code == "conversation_not_found"


def test_title_from_first_answer(store):
    convs = store.conversations
    cid = convs.create("alice", "demo")
    convs.add_message(cid, "user", "What were the sales?")
    assert convs.get(cid).title is None  # user messages do not set it
    answer = "Total  sales\nlast month were 1,234,567 yuan across 12 cities, led by Shanghai."
    convs.add_message(cid, "assistant", answer)
    title = convs.get(cid).title
    assert title == " ".join(answer.split())[:50] and len(title) == 50
    convs.add_message(cid, "user", "And this month?")
    convs.add_message(cid, "assistant", "Something else")
    assert convs.get(cid).title == title


def test_title_falls_back_to_question(store):
    convs = store.conversations
    cid = convs.create("alice", "demo")
    convs.add_message(cid, "user", "上个月每个城市的订单量Top10是多少？")
    convs.add_message(cid, "assistant", "   ", status="error")
    assert convs.get(cid).title == "上个月每个城市的订单量Top10是多少？"


def test_title_kept_when_already_set(store):
    convs = store.conversations
    cid = convs.create("alice", "demo", title="Mine")
    convs.add_message(cid, "user", "q")
    convs.add_message(cid, "assistant", "a")
    assert convs.get(cid).title == "Mine"


def test_recent_turns_pairing(store):
    convs = store.conversations
    cid = convs.create("alice", "demo")
    assert convs.recent_turns(cid, 3) == []
    convs.add_message(cid, "user", "q1")
    convs.add_message(cid, "assistant", "a1", sql="SELECT 1", result_summary="one")
    convs.add_message(cid, "user", "q2 (no reply)")
    convs.add_message(cid, "user", "q3")
    convs.add_message(cid, "assistant", "a3 text only")
    convs.add_message(cid, "assistant", "stray second reply")
    convs.add_message(cid, "user", "q4")
    convs.add_message(
        cid, "assistant", "a4", sql="SELECT 4", result_summary="four", status="fallback"
    )
    convs.add_message(cid, "user", "q5 still running")

    assert convs.recent_turns(cid, 10) == [
        Turn("q1", "SELECT 1", "one"),
        Turn("q3", None, "a3 text only"),
        Turn("q4", "SELECT 4", "four"),
    ]
    assert convs.recent_turns(cid, 2) == [
        Turn("q3", None, "a3 text only"),
        Turn("q4", "SELECT 4", "four"),
    ]
    assert convs.recent_turns(cid, 0) == []


def test_turns_survive_reopen(url):
    with open_store(url) as s:
        cid = s.conversations.create("alice", "demo")
        s.conversations.add_message(cid, "user", "q1")
        s.conversations.add_message(cid, "assistant", "a1", sql="SELECT 1", result_summary="one")
    with open_store(url) as s:  # a new engine on the same file
        assert s.conversations.recent_turns(cid, 3) == [Turn("q1", "SELECT 1", "one")]
        assert s.conversations.get(cid, user_id="alice").title == "a1"
        assert [c.id for c in s.conversations.list("alice")] == [cid]


def test_add_exchange_stores_question_reply_and_more_in_one_transaction(store):
    """A cached answer's turn: the question, the reply (titled as add_message titles it) and the caller's write
    (its audit entry) commit together, or nothing of them does."""
    convs = store.conversations
    cid = convs.create("alice", "demo")
    mid = convs.add_exchange(cid, "orders by city?", "Shanghai leads.", sql="SELECT 1", status="ok",
                             result_summary="1 rows", payload={"cached": True},
                             also=lambda conn: store.audit.record_in(conn, conversation_id=cid, question="q"))
    msgs = convs.messages(cid)
    assert [(m.role, m.content, m.sql, m.payload) for m in msgs] == [
        ("user", "orders by city?", None, None), ("assistant", "Shanghai leads.", "SELECT 1", {"cached": True})]
    assert msgs[1].id == mid and convs.get(cid).title == "Shanghai leads."
    assert store.audit.query(limit=5)[0]["conversation_id"] == cid

    def fail(conn):
        store.audit.record_in(conn, conversation_id=cid, question="second")
        raise RuntimeError("audit failed")

    with pytest.raises(RuntimeError):
        convs.add_exchange(cid, "again?", "Again.", also=fail)
    assert len(convs.messages(cid)) == 2 and len(store.audit.query(limit=5)) == 1  # rolled back together
    with pytest.raises(NotFound):
        convs.add_exchange("nope", "q", "a", also=lambda conn: None)
