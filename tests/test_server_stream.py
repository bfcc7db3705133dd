"""Server-Sent Events, stop, client disconnect and tasks over a real uvicorn server.

A slow scripted model (`delay_s` per streamed piece) keeps an answer running long enough to stop it.
"""

from __future__ import annotations

import time

import pytest

from fixtures_server import CITY_QUESTION, CITY_TOP, parse_sse, stream_events


@pytest.fixture
def slow_server(server_factory):
    from wenshu.providers.fake import ScriptedChatModel

    return server_factory(model=ScriptedChatModel(default=CITY_TOP, delay_s=0.15))


def new_conversation(http) -> str:
    return http.post("/api/conversations", json={}).json()["id"]


def read_until(lines, kind: str) -> list:
    seen = []
    for event in parse_sse(lines):
        seen.append(event)
        if event[0] == kind:
            return seen
    raise AssertionError(f"the stream ended without a {kind!r} event: {seen}")


def test_event_stream_follows_the_documented_order(live_server):
    http = live_server.client()
    cid = new_conversation(http)
    events = stream_events(http, cid, CITY_QUESTION)
    kinds = [k for k, _ in events]
    assert kinds.count("done") == 1 and kinds[-1] == "done" and "error" not in kinds
    tail = [k for k in kinds if k not in ("node", "token", "ping")]
    assert tail == ["sql", "result", "chart", "answer", "done"]
    assert kinds.index("token") < kinds.index("sql") < kinds.index("result")
    assert max(i for i, k in enumerate(kinds) if k == "node") < kinds.index("result")
    nodes = [d for k, d in events if k == "node"]
    assert kinds[0] == "node" and nodes[0] == {"node": "queue", "status": "started", "ahead": 0}  # accepted
    assert nodes[1]["node"] == "queue" and nodes[1]["status"] == "finished" and nodes[1]["outcome"] == "ok"
    for name in {n["node"] for n in nodes}:  # every node starts before it finishes
        statuses = [n["status"] for n in nodes if n["node"] == name]
        assert statuses[0] == "started" and statuses[-1] == "finished"
    finished = [n for n in nodes if n["status"] == "finished"]
    assert all(isinstance(n["ms"], float) for n in finished)
    data = dict(events)
    response = data["answer"]["response"]
    assert [n["node"] for n in finished[1:]] == [t["node"] for t in response["trace"]]
    assert data["sql"]["sql"].startswith("SELECT") and response["sql"].startswith(data["sql"]["sql"].rstrip(";"))
    assert data["result"]["columns"] == ["城市", "订单量"] and data["result"]["row_count"] == 10
    assert data["chart"]["spec"] == response["chart"] and data["answer"]["text"] == response["answer"]
    assert "".join(d["text"] for k, d in events if k == "token").strip().endswith("LIMIT 10")
    done = data["done"]
    assert done["status"] == "ok" and done["conversation_id"] == cid
    stored = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert stored[-1]["id"] == done["message_id"] and stored[-1]["status"] == "ok"


def test_unknown_conversation_and_empty_message_fail_before_streaming(live_server):
    http = live_server.client()
    missing = http.post("/api/conversations/nope/messages", json={"message": CITY_QUESTION})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "conversation_not_found"
    cid = new_conversation(http)
    empty = http.post(f"/api/conversations/{cid}/messages", json={"message": "   "})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "empty_question"
    other_db = http.post(f"/api/conversations/{cid}/messages", json={"message": "hi", "datasource": "nope"})
    assert other_db.status_code == 404 and other_db.json()["error"]["code"] == "unknown_datasource"


def test_a_failed_answer_streams_error_before_done(live_server):
    from wenshu.errors import ModelTimeout

    http = live_server.client()
    cid = new_conversation(http)
    live_server.model.queue(ModelTimeout())
    events = stream_events(http, cid, "top 10 cities by orders")
    kinds = [k for k, _ in events]
    assert kinds[-2:] == ["error", "done"] and kinds.count("done") == 1
    assert dict(events)["error"]["code"] == "model_timeout" and dict(events)["done"]["status"] == "error"


def test_stop_mid_stream_ends_with_stopped_and_stores_the_turn(slow_server):
    http, other = slow_server.client(), slow_server.client()
    cid = new_conversation(http)
    url = f"/api/conversations/{cid}/messages"
    with http.stream("POST", url, json={"message": CITY_QUESTION}) as resp:
        lines = resp.iter_lines()
        read_until(lines, "token")
        busy = other.post(url, json={"message": CITY_QUESTION})  # one answer at a time per conversation
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "conversation_busy"
        assert other.post(f"/api/conversations/{cid}/stop").json() == {"stopped": True}
        rest = list(parse_sse(lines))
    kinds = [k for k, _ in rest]
    assert kinds[-1] == "done" and kinds.count("done") == 1 and "answer" not in kinds and "result" not in kinds
    done = rest[-1][1]
    assert done["status"] == "stopped" and done["conversation_id"] == cid
    assert slow_server.wait_idle() == 0
    messages = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert messages[-1]["status"] == "stopped" and messages[-1]["id"] == done["message_id"]
    assert http.get("/api/audit").json()["items"][0]["status"] == "stopped"
    assert http.post(f"/api/conversations/{cid}/stop").json() == {"stopped": False}
    slow_server.model.delay_s = 0  # the conversation goes on after a stop
    again = stream_events(http, cid, CITY_QUESTION)
    assert again[-1][1]["status"] == "ok" and dict(again)["result"]["row_count"] == 10


def test_client_disconnect_cancels_the_work(slow_server):
    http = slow_server.client()
    cid = new_conversation(http)
    with http.stream("POST", f"/api/conversations/{cid}/messages", json={"message": CITY_QUESTION}) as resp:
        read_until(resp.iter_lines(), "token")
        assert slow_server.state.runner.active_count() == 1
    t0 = time.monotonic()
    assert slow_server.wait_idle(timeout_s=5) == 0  # no dangling work
    assert time.monotonic() - t0 < 3  # stopped at the next token, not after the whole answer
    messages = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert [m["status"] for m in messages] == ["ok", "stopped"]  # the question, then the stopped turn


def test_task_lifecycle(live_server):
    http = live_server.client()
    created = http.post("/api/tasks", json={"message": CITY_QUESTION})
    assert created.status_code == 202
    task_id = created.json()["task_id"]
    deadline = time.monotonic() + 60
    while (task := http.get(f"/api/tasks/{task_id}").json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert task["status"] == "done" and task["result"]["row_count"] == 10
    assert task["progress"][:4] == ["intent", "recall", "plan", "generate"] and task["progress"][-1] == "explain"
    assert task["result"]["conversation_id"] == created.json()["conversation_id"]
    assert http.delete(f"/api/tasks/{task_id}").json()["status"] == "done"  # finished: left as it is
    unknown = http.get("/api/tasks/nope")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "task_not_found"


def test_cancel_a_running_task(slow_server):
    http = slow_server.client()
    task_id = http.post("/api/tasks", json={"message": CITY_QUESTION}).json()["task_id"]
    deadline = time.monotonic() + 60
    while "recall" not in http.get(f"/api/tasks/{task_id}").json()["progress"]:  # generating, slowly
        assert time.monotonic() < deadline
        time.sleep(0.05)
    cancelled = http.delete(f"/api/tasks/{task_id}").json()
    assert cancelled["status"] == "cancelled" and "result" not in cancelled and "error" not in cancelled
    assert http.get(f"/api/tasks/{task_id}").json()["status"] == "cancelled"
    assert slow_server.wait_idle() == 0


def test_an_idle_stream_gets_keepalive_comments(server_factory):
    from wenshu.providers.fake import ScriptedChatModel

    short = "SELECT COUNT(*) AS n FROM orders"
    live = server_factory(model=ScriptedChatModel(default=short, delay_s=0.4), sse_ping_s=0.1)
    http = live.client()
    events = stream_events(http, new_conversation(http), "how many orders are there")
    kinds = [k for k, _ in events]
    assert "ping" in kinds and kinds[-1] == "done" and dict(events)["done"]["status"] == "ok"


def test_a_queued_answer_is_acknowledged_at_once_and_reports_its_wait(server_factory):
    """One worker, three conversations: the second and third hear `queue started` (with how many wait
    ahead) while the first still runs; the second's queue step finishes only once a worker takes it."""
    from wenshu.providers.fake import ScriptedChatModel

    live = server_factory(model=ScriptedChatModel(default=CITY_TOP, delay_s=0.15), server_workers=1)
    http = live.client()
    a, b, c = (new_conversation(http) for _ in range(3))
    with live.client().stream("POST", f"/api/conversations/{a}/messages", json={"message": CITY_QUESTION}) as ra:
        a_lines = ra.iter_lines()
        read_until(a_lines, "token")  # the only worker is busy with a
        with live.client().stream("POST", f"/api/conversations/{b}/messages", json={"message": CITY_QUESTION}) as rb, \
                live.client().stream("POST", f"/api/conversations/{c}/messages", json={"message": CITY_QUESTION}) as rc:
            b_lines, c_lines = rb.iter_lines(), rc.iter_lines()
            assert next(parse_sse(b_lines)) == ("node", {"node": "queue", "status": "started", "ahead": 0})
            assert next(parse_sse(c_lines)) == ("node", {"node": "queue", "status": "started", "ahead": 1})
            assert live.state.runner.active_count() == 3
            time.sleep(0.15)  # b waits this long behind a at least, however fast the asserts above ran
            t0 = time.monotonic()
            assert http.post(f"/api/conversations/{a}/stop").json() == {"stopped": True}
            live.model.delay_s = 0
            b_events = list(parse_sse(b_lines))
            c_events = list(parse_sse(c_lines))
        assert list(parse_sse(a_lines))[-1][1]["status"] == "stopped"
    # c hears its place in line move when b starts (visible queue), then its own start
    assert c_events[0] == ("progress", {"node": "queue", "ahead": 0})
    for events in (b_events, c_events[1:]):
        first = events[0]
        assert first[0] == "node" and first[1]["node"] == "queue" and first[1]["status"] == "finished"
        assert first[1]["ms"] > 0 and events[1] == ("node", {"node": "intent", "status": "started"})
        assert events[-1][1]["status"] == "ok"
    assert not any(k == "progress" for k, _ in b_events)  # b was first in line: nothing moved for it
    waited_b = b_events[0][1]["ms"]
    assert waited_b >= 100  # b waited while a generated (at least the first token's 150 ms)
    assert c_events[1][1]["ms"] > waited_b  # c waited for a, then for b
    assert time.monotonic() - t0 < 30 and live.wait_idle() == 0
