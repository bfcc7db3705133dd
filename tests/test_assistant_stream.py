"""The assistant's steps as they happen, its turns in the conversation, and its cost on data questions.

The scripted fake model streams its answers in pieces (8 characters), like the embedded model; the demo
database, the app store and the data pipeline are the real ones."""

from __future__ import annotations

import json

import pytest
from test_assistant import final, step

from wenshu.assistant.memory import EarlierTurn, history_block
from wenshu.assistant.route import route
from wenshu.assistant.service import Assistant
from wenshu.assistant.stream import AnswerTokens
from wenshu.contracts import AgentRequest
from wenshu.errors import ModelTimeout, RunCancelled

REQUEST = "Explain in two sentences what a cohort analysis is"  # the agent route, no workspace, may answer at once


@pytest.fixture
def assistant(settings, store, agent):
    return Assistant(settings, store, agent=agent)


def one_file_project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Export\n")
    return root


@pytest.fixture
def project(tmp_path):
    return one_file_project(tmp_path)


def collect(assistant, message: str, **kw):
    events = []
    resp = assistant.ask(message, on_event=events.append, **kw)
    return resp, events


def nodes(events, name: str) -> list:
    return [e for e in events if e.type == "node" and e.node == name]


def test_tool_steps_and_the_final_answer_stream_as_they_happen(assistant, fake_model, project):
    answer = 'Your project has one file: README.md. 项目里只有一个文件，"README.md"。'
    fake_model.queue(step("list_files", path="."), final(answer))
    resp, events = collect(assistant, "what files are in the folder?", workspace=project)
    assert resp.status == "ok" and resp.answer == answer
    route_events = nodes(events, "route")
    assert [(e.status, e.data) for e in route_events] == [
        ("started", None),
        ("ok", {"detail": "agent", "reason": "workspace"}),  # a workspace is open: the agent answers
    ]
    tool = nodes(events, "tool")
    assert tool[0].status == "started" and tool[0].data == {"tool": "list_files", "arguments": {"path": "."}}
    assert tool[1].status == "ok" and tool[1].data["tool"] == "list_files" and "README.md" in tool[1].data["detail"]
    assert tool[1].ms >= 0 and resp.steps[0].ms == tool[1].ms
    decide = [(e.status, e.data) for e in nodes(events, "decide")]
    assert decide == [("started", None), ("ok", "list_files"), ("started", None), ("ok", "final")]
    tokens = [e.data for e in events if e.type == "token"]
    assert len(tokens) > 3 and "".join(tokens) == answer  # piece by piece, escapes decoded, JSON left out
    kinds = [(e.type, e.node) for e in events]
    assert kinds.index(("node", "tool")) < kinds.index(("token", None))  # no token of the tool step


def test_answer_tokens_read_the_answer_out_of_json_split_anywhere():
    text = 'Line one\nsays "hi" \\ 中文 \U0001f600 end'
    raw = json.dumps({"action": "final", "answer": text})  # ASCII escapes, a surrogate pair for the emoji
    for size in (1, 2, 5):
        out = []
        tokens = AnswerTokens(out.append)
        for i in range(0, len(raw), size):
            tokens.feed(raw[i : i + size])
        assert "".join(out) == text
    out = []
    tool = AnswerTokens(out.append)
    tool.feed(json.dumps({"action": "write_file", "arguments": {"path": "a", "content": '"answer": "x"'}}))
    assert out == []
    for found, streamed in ((False, ""), (True, "退款三个工作日内原路退回。")):  # found: false is replaced, not shown
        out = []
        AnswerTokens(out.append).feed(json.dumps({"action": "final", "found": found, "answer": "退款三个工作日内原路退回。"},
                                                 ensure_ascii=False))
        assert "".join(out) == streamed


def test_a_data_question_through_the_assistant_adds_no_model_call(assistant, agent, fake_model):
    fake_model.queue("SELECT COUNT(*) AS n FROM customers")
    direct = agent.ask(AgentRequest(message="How many customers are there in total?"))
    direct_calls = len(fake_model.calls)
    fake_model.queue("SELECT COUNT(*) AS n FROM orders")
    resp, events = collect(assistant, "How many orders are there in total?")
    assert direct.sql and resp.route == "data" and resp.data.sql and resp.data.error is None
    assert direct_calls == 1 and len(fake_model.calls) - direct_calls == 1  # the pipeline's own call, nothing more
    assert resp.usage.llm_calls == direct.usage.llm_calls == 1
    assert not nodes(events, "decide") and not nodes(events, "tool")
    assert [e.node for e in events if e.type == "node" and e.status == "started"][:3] == ["route", "intent", "recall"]


def test_turns_are_stored_and_the_next_turn_sees_the_earlier_ones(assistant, store, fake_model):
    fake_model.queue(final("Cohorts: customers grouped by their first purchase month."))
    first = assistant.ask(REQUEST)
    assert first.route == "agent" and first.conversation_id and first.message_id
    fake_model.queue(final("Shorter: grouped by first month."))
    second = assistant.ask("make it shorter", conversation_id=first.conversation_id)
    assert second.conversation_id == first.conversation_id and second.answer == "Shorter: grouped by first month."
    prompt = fake_model.calls[-1][-1].content
    assert "User: " + REQUEST + "\nAssistant: Cohorts: customers grouped by their first purchase month." in prompt
    assert prompt.index("Cohorts: customers") < prompt.index("Request: make it shorter")
    stored = store.conversations.messages(first.conversation_id)
    assert [(m.role, m.content) for m in stored] == [("user", REQUEST), ("assistant", first.answer),
                                                     ("user", "make it shorter"), ("assistant", second.answer)]
    assert stored[-1].id == second.message_id and stored[-1].payload["route"] == "agent"


def test_another_users_conversation_is_neither_read_nor_continued(assistant, store, fake_model):
    fake_model.queue(final("Cohorts, for Ann."))
    first = assistant.ask(REQUEST, user_id="ann")
    with pytest.raises(Exception) as err:
        assistant.ask(REQUEST, conversation_id=first.conversation_id, user_id="bob")
    assert getattr(err.value, "code", "") == "not_found"
    assert "Cohorts, for Ann" not in fake_model.calls[-1][-1].content  # bob's step never saw ann's turn


def test_history_keeps_the_newest_turns_within_the_budget():
    turns = [EarlierTurn(f"question {i}", "word " * 60, False) for i in range(10)]
    block = history_block(turns, budget_tokens=200)
    assert "question 9" in block and "question 8" in block and "question 0" not in block
    assert block.index("question 8") < block.index("question 9")  # oldest first
    assert history_block(turns, budget_tokens=5) == "" and history_block([], 600) == ""
    long = history_block([EarlierTurn("q", "x" * 5000, False)], budget_tokens=600)
    assert long.endswith("…") and len(long) < 600


def test_a_follow_up_of_a_data_answer_stays_with_the_data_pipeline(assistant, store, fake_model):
    assert route("what about last month?", workspace=False) == "agent"
    assert route("what about last month?", workspace=False, follows_data=True) == "data"
    fake_model.queue("SELECT COUNT(*) AS n FROM orders")
    first = assistant.ask("How many orders are there in total?")
    before = len(fake_model.calls)
    fake_model.default = "SELECT COUNT(*) AS n FROM orders WHERE order_date >= date('now', '-1 month')"
    second = assistant.ask("what about last month?", conversation_id=first.conversation_id)
    assert second.route == "data" and second.conversation_id == first.conversation_id and second.data is not None
    assert "How many orders are there in total?" in fake_model.calls[before][-1].content  # the pipeline's history
    assert [m.role for m in store.conversations.messages(first.conversation_id)] == ["user", "assistant"] * 2


def test_a_stopped_turn_is_stored_as_stopped(assistant, store, fake_model, project):
    fake_model.queue(step("list_files", path="."), final("never"))
    created = store.conversations.create("local", "demo")

    def stop_at_the_tool(event):
        if event.type == "node" and event.node == "tool":
            raise RunCancelled()

    with pytest.raises(RunCancelled):
        assistant.ask("what files are in the folder?", workspace=project, conversation_id=created,
                      on_event=stop_at_the_tool)
    assert [(m.role, m.status) for m in store.conversations.messages(created)] == [("user", "ok"),
                                                                                    ("assistant", "stopped")]


def test_a_model_failure_ends_the_turn_with_the_error_stored(assistant, store, fake_model):
    fake_model.queue(ModelTimeout())
    resp = assistant.ask(REQUEST)
    assert resp.status == "error" and resp.error.code == "model_timeout" and resp.answer
    last = store.conversations.messages(resp.conversation_id)[-1]
    assert last.status == "error" and last.id == resp.message_id and last.payload["error"]["code"] == "model_timeout"


def test_a_terse_follow_up_naming_only_a_value_stays_with_the_data_pipeline(assistant, fake_model):
    values = [{"table": "cities", "column": "city_name", "value": "杭州"}]
    assert route("杭州那边呢", workspace=False, follows_data=True) == "agent"  # no opener, no word of the schema
    assert route("杭州那边呢", workspace=False, follows_data=True, values=values) == "data"
    fake_model.queue("SELECT c.city_name, COUNT(*) AS n FROM orders o JOIN cities c ON c.city_id = o.city_id GROUP BY 1")
    first = assistant.ask("每个城市有多少订单")
    fake_model.default = ("SELECT c.city_name, COUNT(*) AS n FROM orders o JOIN cities c ON c.city_id = o.city_id "
                          "WHERE c.city_name = '杭州' GROUP BY 1")
    second = assistant.ask("杭州那边呢", conversation_id=first.conversation_id)
    assert second.route == "data" and second.data is not None and second.data.rows[0][0] == "杭州"
