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
    assert [(d["status"], d.get("detail"), d.get("reason")) for d in node_events(events, "route")] == [
        ("started", None, None), ("finished", "agent", "skill")]
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
    audit = http.get("/api/audit").json()["items"]  # the turn and, older, its query_database call: each audited
    assert [(e["question"], e["route"], e["route_reason"], e["status"]) for e in audit] == [
        (REPORT, "agent", "skill", "ok"), ("how many orders in total", None, None, "ok")]
    assert audit[0]["tools"] == [{"tool": "query_database", "arguments": {"question": "how many orders in total"},
                                  "outcome": "ok", "ms": tool[1]["ms"]}]
    assert audit[0]["conversation_id"] == cid and audit[0]["sql"] is None and audit[1]["sql"]

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
    assert node_events(events, "route")[-1]["reason"] == response["route_reason"] == "data"
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
    folder = {"message": "what files are in the folder?", "workspace": str(live.state.settings.home)}
    not_admin = carol.post(f"/api/conversations/{own}/assistant", json=folder)  # workspace tools: admins only
    assert not_admin.status_code == 403 and not_admin.json()["error"]["code"] == "forbidden"
    no_roots = alice.post(url, json=folder)
    assert no_roots.status_code == 403 and no_roots.json()["error"]["code"] == "workspace_roots_unset"
    assert live.state.store.audit.query() == []  # nothing ran


def test_a_folder_of_the_roots_gives_the_turn_the_workspace_tools_and_the_turn_is_audited(server_factory, tmp_path):
    project = tmp_path / "roots" / "shop"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# Shop\n")
    (tmp_path / "secret.txt").write_text("no")
    live = server_factory(workspace_roots=[tmp_path / "roots"])
    http, fake = live.client(), live.model
    cid = new_conversation(http)
    outside = http.post(f"/api/conversations/{cid}/assistant", json={"message": "list it", "workspace": str(tmp_path)})
    assert outside.status_code == 403 and outside.json()["error"]["code"] == "workspace_not_allowed"
    notes = "第一行 " + "x" * 400
    fake.queue("<think>I have not seen this folder: list it first.</think>\n" + step("list_files", path="."),
               step("read_file", path="../../secret.txt"), step("write_file", path="NOTES.md", content=notes),
               final("The shop has a README; notes written."))
    events = stream_events(http, cid, "what files are in the folder?", resource="assistant",
                           workspace=str(project / ".." / "shop"))
    response = dict(events)["answer"]["response"]
    assert {"list_files", "read_file", "write_file", "run_command"} <= set(response["tools"])
    assert [(s["action"], s["ok"]) for s in response["steps"]] == [("list_files", True), ("read_file", False),
                                                                   ("write_file", True)]
    assert "README.md" in response["steps"][0]["result"] and (project / "NOTES.md").read_text() == notes
    thinking = [d["text"] for k, d in events if k == "thinking"]  # a reasoning model's thinking: streamed apart
    assert "".join(thinking) == "I have not seen this folder: list it first."
    assert response["answer"] == "The shop has a README; notes written." and "<think>" not in json.dumps(response)
    entry = http.get("/api/audit").json()["items"][0]
    assert (entry["question"], entry["route"], entry["status"]) == ("what files are in the folder?", "agent", "ok")
    listed, refused, wrote = entry["tools"]
    assert listed["arguments"] == {"path": "."} and listed["outcome"] == "ok" and "detail" not in listed
    assert refused["outcome"] == "error" and refused["detail"].startswith("path_outside_workspace: ")  # the refusal
    assert wrote["arguments"]["path"] == "NOTES.md" and len(wrote["arguments"]["content"]) == 200  # shortened
    assert wrote["arguments"]["content"].startswith("第一行 xx") and wrote["arguments"]["content"].endswith("…")


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
    audit = http.get("/api/audit").json()["items"]
    assert [(e["question"], e["route"], e["status"], e["tools"]) for e in audit] == [(REPORT, "agent", "stopped", [])]
