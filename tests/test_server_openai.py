"""The OpenAI-compatible endpoint, driven by the official `openai` client against a real loopback server."""

from __future__ import annotations

import json
import sqlite3
import time

import httpx
import openai
import pytest
from fixtures_server import CITY_QUESTION, CITY_TOP

from wenshu.providers.fake import ScriptedChatModel


def gold(home, sql=CITY_TOP):
    with sqlite3.connect(home / "data" / "demo.sqlite") as conn:
        return [list(r) for r in conn.execute(sql).fetchall()]


def client_for(live, token: str = "not-needed") -> openai.OpenAI:
    return openai.OpenAI(base_url=live.url + "/v1", api_key=token, max_retries=0, timeout=30)


def table_rows(content: str) -> list[list[str]]:
    lines = [ln for ln in content.splitlines() if ln.startswith("| ")]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines[2:]]


def test_models_lists_wenshu_and_one_per_datasource(live_server):
    ids = [m.id for m in client_for(live_server).models.list()]
    assert ids == ["wenshu", "wenshu:demo"]


def test_completion_is_markdown_with_answer_sql_and_table(live_server, home):
    raw = client_for(live_server).chat.completions.with_raw_response.create(
        model="wenshu",
        messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": CITY_QUESTION}])
    completion = raw.parse()
    cid = raw.headers["x-wenshu-conversation"]
    assert completion.object == "chat.completion" and cid in completion.id
    choice = completion.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    content = choice.message.content
    assert content.startswith("共 10 行")
    assert f"```sql\n{CITY_TOP}" in content
    assert "| 城市 | 订单量 |" in content
    assert table_rows(content) == [[str(v) for v in row] for row in gold(home)]
    assert completion.model_extra["wenshu"]["conversation_id"] == cid
    assert completion.model_extra["wenshu"]["row_count"] == 10
    assert completion.usage.completion_tokens > 0
    messages = live_server.state.store.conversations.messages(cid)
    assert [m.role for m in messages] == ["user", "assistant"] and messages[0].content == CITY_QUESTION


def test_follow_up_in_the_same_conversation_via_user(live_server, fake_model):
    client = client_for(live_server)
    first = client.chat.completions.create(model="wenshu:demo", user="conv-openai-1",
                                           messages=[{"role": "user", "content": CITY_QUESTION}])
    fake_model.queue(CITY_TOP.replace("LIMIT 10", "LIMIT 3"))
    second = client.chat.completions.create(model="wenshu:demo", user="conv-openai-1", messages=[
        {"role": "user", "content": CITY_QUESTION}, {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "只看前3个"}])
    assert second.model_extra["wenshu"]["conversation_id"] == "conv-openai-1"
    assert len(table_rows(second.choices[0].message.content)) == 3
    stored = live_server.state.store.conversations.messages("conv-openai-1")
    assert [m.content for m in stored if m.role == "user"] == [CITY_QUESTION, "只看前3个"]
    assert CITY_QUESTION in str(fake_model.calls[-1][-1].content)  # the earlier turn reached the prompt


def test_conversation_header_wins_over_user(live_server):
    raw = client_for(live_server).chat.completions.with_raw_response.create(
        model="wenshu", user="ignored-user-field", extra_headers={"X-Wenshu-Conversation": "conv-from-header"},
        messages=[{"role": "user", "content": CITY_QUESTION}])
    assert raw.headers["x-wenshu-conversation"] == "conv-from-header"
    assert live_server.state.store.conversations.get("conv-from-header") is not None


def test_streaming_chunks_end_with_stop_and_done(live_server, home):
    stream = client_for(live_server).chat.completions.create(
        model="wenshu", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": CITY_QUESTION}])
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content.startswith("共 10 行") and f"```sql\n{CITY_TOP}" in content
    assert table_rows(content) == [[str(v) for v in row] for row in gold(home)]
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert [c.choices[0].finish_reason for c in finals] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    assert len({c.id for c in chunks}) == 1


def test_stream_wire_format_and_header(live_server):
    with httpx.Client(base_url=live_server.url, timeout=30) as http, http.stream(
            "POST", "/v1/chat/completions",
            json={"model": "wenshu", "stream": True, "messages": [{"role": "user", "content": CITY_QUESTION}]}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["x-wenshu-conversation"]
        lines = [ln for ln in r.iter_lines() if ln]
    assert lines[-1] == "data: [DONE]" and all(ln.startswith("data: ") for ln in lines)
    last = json.loads(lines[-2][6:])
    assert last["choices"][0]["finish_reason"] == "stop"
    assert last["wenshu"]["conversation_id"] == r.headers["x-wenshu-conversation"]


def test_errors_use_the_openai_shape(live_server):
    client = client_for(live_server)
    with pytest.raises(openai.NotFoundError) as unknown:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert unknown.value.code == "model_not_found" and unknown.value.type == "invalid_request_error"
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="wenshu:nosuchdb", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.BadRequestError) as empty:
        client.chat.completions.create(model="wenshu", messages=[{"role": "user", "content": "  "}])
    assert empty.value.code == "empty_question"
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        bad = http.post("/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
        no_messages = http.post("/v1/chat/completions", json={"model": "wenshu", "messages": []})
        zh = http.post("/v1/chat/completions?lang=zh",
                       json={"model": "x", "messages": [{"role": "user", "content": "a"}]})
        long_id = http.post("/v1/chat/completions", json={"model": "wenshu", "user": "u" * 33,
                                                          "messages": [{"role": "user", "content": "a"}]})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "input_invalid_json"
    assert set(bad.json()["error"]) == {"message", "type", "code", "param"}
    assert no_messages.status_code in (400, 422) and no_messages.json()["error"]["type"] == "invalid_request_error"
    assert zh.status_code == 404 and "未知的模型" in zh.json()["error"]["message"]
    assert long_id.status_code == 400 and long_id.json()["error"]["code"] == "input_invalid"


def test_auth_tokens_and_conversation_isolation(server_factory):
    live = server_factory(auth_required=True)
    users = live.state.store.users
    _, alice = users.create_token("alice")
    _, bob = users.create_token("bob")
    users.grant("alice", "demo")
    users.grant("bob", "demo")
    anonymous = httpx.get(live.url + "/v1/models", timeout=30)
    assert anonymous.status_code == 401
    error = anonymous.json()["error"]
    assert error == {"message": error["message"], "type": "authentication_error", "code": "auth_required",
                     "param": None}
    with pytest.raises(openai.AuthenticationError) as forged:
        client_for(live, "wst_forged").models.list()
    assert forged.value.code == "token_invalid"
    done = client_for(live, alice).chat.completions.create(
        model="wenshu", user="alice-conv", messages=[{"role": "user", "content": CITY_QUESTION}])
    assert done.model_extra["wenshu"]["conversation_id"] == "alice-conv"
    assert live.state.store.conversations.get("alice-conv", user_id="alice") is not None
    with pytest.raises(openai.NotFoundError):
        client_for(live, bob).chat.completions.create(
            model="wenshu", user="alice-conv", messages=[{"role": "user", "content": CITY_QUESTION}])
    assert [m.id for m in client_for(live, bob).models.list()] == ["wenshu", "wenshu:demo"]


class SlowModel(ScriptedChatModel):
    """The scripted fake, streaming its answer slowly (as a real model does), so a client can leave mid-answer."""

    delay_s: float = 0.15

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        for piece in super()._stream(messages, stop, run_manager, **kwargs):
            time.sleep(self.delay_s)
            yield piece


def test_client_leaving_mid_stream_stops_the_answer(server_factory):
    live = server_factory(model=SlowModel(default=CITY_TOP))
    with httpx.Client(base_url=live.url, timeout=30) as http, http.stream(
            "POST", "/v1/chat/completions", headers={"X-Wenshu-Conversation": "conv-leave"},
            json={"model": "wenshu", "stream": True, "messages": [{"role": "user", "content": CITY_QUESTION}]}) as r:
        first = next(r.iter_lines())
        assert json.loads(first[6:])["choices"][0]["delta"]["role"] == "assistant"
        assert live.state.runner.active_count() == 1
    assert live.wait_idle(10) == 0
    messages = live.state.store.conversations.messages("conv-leave")
    assert [(m.role, m.status) for m in messages][-1] == ("assistant", "stopped")
