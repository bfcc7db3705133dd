"""The general assistant over HTTP: POST /api/conversations/{id}/assistant on a real uvicorn server with the
scripted fake model. Its steps stream as `node` events, its answer as tokens, its turns are stored in the
conversation; a data question streams exactly like the pipeline's and costs no extra model call."""

from __future__ import annotations

import json

import pytest
from fixtures_server import CITY_QUESTION, parse_sse, stream_events

REPORT = "Please write last week's weekly report"  # the weekly-report skill fits: the agent route


def step(action: str, **arguments) -> str:
    return json.dumps({"action": action, "arguments": arguments})


def final(answer: str) -> str:
    return json.dumps({"action": "final", "answer": answer}, ensure_ascii=False)


def new_conversation(http) -> str:
    return http.post("/api/conversations", json={}).json()["id"]


def node_events(events, name: str) -> list[dict]:
    return [d for k, d in events if k == "node" and d["node"] == name]


def test_tool_steps_tokens_and_the_answer_stream_and_the_turns_are_stored(live_server):
    http, fake = live_server.client(), live_server.model
    cid = new_conversation(http)
    answer = "上周共有 120,000 笔订单。"
    fake.queue(step("query_database", question="how many orders in total"), "SELECT COUNT(*) AS n FROM orders",
               final(answer))
    events = stream_events(http, cid, REPORT, resource="assistant")
    kinds = [k for k, _ in events]
    assert kinds.count("done") == 1 and kinds[-1] == "done" and "error" not in kinds and "result" not in kinds
    assert [(d["status"], d.get("detail")) for d in node_events(events, "route")] == [("started", None),
                                                                                     ("finished", "agent")]
    tool = node_events(events, "tool")
    assert tool[0] == {"node": "tool", "status": "started", "tool": "query_database",
                       "arguments": {"question": "how many orders in total"}}
    assert tool[1]["status"] == "finished" and tool[1]["outcome"] == "ok" and tool[1]["tool"] == "query_database"
    assert "120000" in tool[1]["detail"].replace(",", "") and isinstance(tool[1]["ms"], float)
    assert [d["detail"] for d in node_events(events, "decide") if d["status"] == "finished"] == ["query_database",
                                                                                               "final"]
    assert "".join(d["text"] for k, d in events if k == "token") == answer
    data = dict(events)
    response = data["answer"]["response"]
    assert data["answer"]["text"] == answer and response["route"] == "agent" and response["skills"] == ["weekly-report"]
    assert response["steps"][0]["action"] == "query_database" and response["conversation_id"] == cid
    stored = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert [(m["role"], m["content"]) for m in stored] == [("user", REPORT), ("assistant", answer)]
    assert stored[-1]["id"] == data["done"]["message_id"] and stored[-1]["payload"]["steps"][0]["ok"] is True
    assert [c["id"] for c in http.get("/api/conversations").json()["items"]] == [cid]  # the tool's question is a step
    assert [e["question"] for e in http.get("/api/audit").json()["items"]] == ["how many orders in total"]  # audited

    fake.queue(final("Shorter."))
    again = stream_events(http, cid, "make it shorter", resource="assistant")
    assert dict(again)["answer"]["text"] == "Shorter." and f"Assistant: {answer}" in fake.calls[-1][-1].content
    assert len(http.get(f"/api/conversations/{cid}").json()["messages"]) == 4


def test_a_data_question_streams_like_the_pipeline_with_no_model_call_added(live_server):
    http, fake = live_server.client(), live_server.model
    before = len(fake.calls)
    direct = stream_events(http, new_conversation(http), CITY_QUESTION)
    between = len(fake.calls)
    cid = new_conversation(http)
    events = stream_events(http, cid, CITY_QUESTION.replace("Top10", "前10"), resource="assistant")  # not cached
    assert between - before == len(fake.calls) - between == 1  # the pipeline's one generation, no decide step
    tail = [k for k, _ in events if k not in ("node", "token", "ping")]
    assert tail == [k for k, _ in direct if k not in ("node", "token", "ping")] == ["sql", "result", "chart", "answer",
                                                                                   "done"]
    assert node_events(events, "route")[-1]["detail"] == "data" and not node_events(events, "tool")
    data = dict(events)
    response = data["answer"]["response"]
    assert response["route"] == "data" and response["data"]["sql"] and data["result"]["row_count"] == 10
    assert data["chart"]["spec"] == response["data"]["chart"]
    stored = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert len(stored) == 2 and stored[-1]["sql"] and stored[-1]["payload"]["trace"]  # a data turn, stored as one
    assert stored[-1]["id"] == data["done"]["message_id"]


@pytest.fixture
def tokens(settings):
    from wenshu.bootstrap import open_store

    with open_store(settings) as store:
        out = {name: store.users.create_token(name)[1] for name in ("alice", "carol")}
        store.users.grant("alice", "*")
        store.users.grant("carol", "warehouse")
    return out


def test_the_same_auth_and_grants_as_the_ask_routes(server_factory, tokens):
    live = server_factory()
    alice, carol = live.client(tokens["alice"]), live.client(tokens["carol"])
    cid = new_conversation(alice)
    url = f"/api/conversations/{cid}/assistant"
    anonymous = live.client().post(url, json={"message": REPORT})
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "auth_required"
    others = carol.post(url, json={"message": REPORT})  # alice's conversation answers carol like an unknown one
    assert others.status_code == 404 and others.json()["error"]["code"] == "conversation_not_found"
    own = live.state.store.conversations.create("carol", "demo")  # hers, on a datasource she is not granted
    refused = carol.post(f"/api/conversations/{own}/assistant", json={"message": REPORT})
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "unknown_datasource"
    assert [m.role for m in live.state.store.conversations.messages(own)] == []  # refused before anything ran
    empty = alice.post(url, json={"message": "  "})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "empty_question"


def test_stop_ends_the_assistant_and_stores_the_turn_as_stopped(server_factory):
    from wenshu.providers.fake import ScriptedChatModel

    live = server_factory(model=ScriptedChatModel(default=final("A long report. " * 20), delay_s=0.1))
    http, other = live.client(), live.client()
    cid = new_conversation(http)
    with http.stream("POST", f"/api/conversations/{cid}/assistant", json={"message": REPORT}) as resp:
        lines = resp.iter_lines()
        for kind, data in parse_sse(lines):
            if kind == "token":
                break
        assert other.post(f"/api/conversations/{cid}/stop").json() == {"stopped": True}
        rest = list(parse_sse(lines))
    assert rest[-1][0] == "done" and rest[-1][1]["status"] == "stopped" and "answer" not in [k for k, _ in rest]
    assert live.wait_idle() == 0
    stored = http.get(f"/api/conversations/{cid}").json()["messages"]
    assert [(m["role"], m["status"]) for m in stored] == [("user", "ok"), ("assistant", "stopped")]
    assert stored[-1]["id"] == rest[-1][1]["message_id"]
