"""The chat-robot webhook over a real loopback server: signed, forged, stale and malformed messages."""

from __future__ import annotations

import base64
import hashlib
import json
import time

import httpx
import pytest
from fixtures_server import CITY_QUESTION, CITY_TOP

from wenshu.channels.base import IncomingMessage, sign

SECRET = "webhook-test-secret"


def wecom_body(text: str, user: str = "zhangsan", chat: str = "chat-1") -> bytes:
    body = {"msgid": "m1", "chatid": chat, "chattype": "group", "from": {"userid": user},
            "msgtype": "text", "text": {"content": f"@问数 {text}"}}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def post(live, name: str, body: bytes, secret: str = SECRET, ts: int | None = None, **headers) -> httpx.Response:
    ts_text = str(int(time.time()) if ts is None else ts)
    signed = {"X-Wenshu-Timestamp": ts_text, "X-Wenshu-Signature": sign(secret, ts_text, body),
              "Content-Type": "application/json"}
    return httpx.post(f"{live.url}/channels/webhook/{name}", content=body, headers=signed | headers, timeout=60)


@pytest.fixture
def live(server_factory):
    return server_factory(webhook_secret=SECRET, webhook_channels={
        "ops": {"kind": "feishu", "secret": "ops-secret", "datasource": "demo"}})


def test_signed_message_gets_text_and_chart_image(live):
    resp = post(live, "wecom", wecom_body(CITY_QUESTION))
    assert resp.status_code == 200, resp.text
    items = resp.json()["mixed"]["msg_item"]
    text = items[0]["markdown"]["content"]
    assert text.startswith("共 10 行") and f"```sql\n{CITY_TOP}" in text and "| 城市 | 订单量 |" in text
    png = base64.b64decode(items[1]["image"]["base64"])
    assert png.startswith(b"\x89PNG") and hashlib.md5(png).hexdigest() == items[1]["image"]["md5"]
    cid = IncomingMessage(CITY_QUESTION, "zhangsan", "chat-1").conversation_id("wecom")
    conv = live.state.store.conversations.get(cid)
    assert conv.user_id == "wecom:zhangsan"
    assert [m.role for m in live.state.store.conversations.messages(cid)] == ["user", "assistant"]


def test_same_chat_is_one_conversation_other_chat_another(live):
    for chat in ("chat-a", "chat-a", "chat-b"):
        assert post(live, "wecom", wecom_body(CITY_QUESTION, chat=chat)).status_code == 200
    conv = live.state.store.conversations
    a = IncomingMessage("", "zhangsan", "chat-a").conversation_id("wecom")
    b = IncomingMessage("", "zhangsan", "chat-b").conversation_id("wecom")
    assert len(conv.messages(a)) == 4 and len(conv.messages(b)) == 2


def test_forged_stale_and_unsigned_messages_are_refused(live):
    body = wecom_body(CITY_QUESTION)
    forged = post(live, "wecom", body, secret="guessed")
    stale = post(live, "wecom", body, ts=int(time.time()) - 600)
    future = post(live, "wecom", body, ts=int(time.time()) + 600)
    unsigned = httpx.post(f"{live.url}/channels/webhook/wecom", content=body, timeout=30)
    ts = str(int(time.time()))
    tampered = httpx.post(f"{live.url}/channels/webhook/wecom", content=wecom_body("DROP TABLE orders"), timeout=30,
                          headers={"X-Wenshu-Timestamp": ts, "X-Wenshu-Signature": sign(SECRET, ts, body)})
    for resp in (forged, stale, future, unsigned, tampered):
        assert resp.status_code == 401
        assert resp.json() == {"error": {"code": "bad_signature", "message": resp.json()["error"]["message"]}}
    zh = post(live, "wecom", body, secret="guessed", **{"Accept-Language": "zh-CN"})
    assert "签名" in zh.json()["error"]["message"]
    assert live.state.store.audit.query() == []  # nothing reached the agent


def test_malformed_and_unknown_channel_and_ignored_events(live):
    bad_json = post(live, "wecom", b"{not json")
    not_object = post(live, "wecom", b"[1, 2]")
    assert bad_json.status_code == 400 and bad_json.json()["error"]["code"] == "input_invalid_json"
    assert not_object.status_code == 400
    unknown = post(live, "nosuch", wecom_body("hi"))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_channel"
    image = json.dumps({"msgtype": "image", "from": {"userid": "u"}, "chatid": "c"}).encode()
    assert post(live, "wecom", image).json() == {"ignored": True}


def test_feishu_channel_with_its_own_secret_and_handshake(live):
    challenge = json.dumps({"type": "url_verification", "challenge": "xyz"}).encode()
    assert post(live, "ops", challenge, secret=SECRET).status_code == 401  # the shared secret is not ops's
    assert post(live, "ops", challenge, secret="ops-secret").json() == {"challenge": "xyz"}
    event = {"header": {"event_type": "im.message.receive_v1"},
             "event": {"sender": {"sender_id": {"open_id": "ou_1"}},
                       "message": {"chat_id": "oc_1", "message_type": "text",
                                   "content": json.dumps({"text": f"@_user_1 {CITY_QUESTION}"})}}}
    reply = post(live, "ops", json.dumps(event).encode(), secret="ops-secret").json()
    assert "```sql" in reply["content"]["post"]["zh_cn"]["content"][0][0]["text"]
    assert base64.b64decode(reply["image"]["base64"]).startswith(b"\x89PNG")


def test_agent_failure_is_a_chat_reply_and_no_secret_means_refused(live, server_factory):
    only_mention = json.dumps({"msgtype": "text", "text": {"content": "@问数 "}, "from": {"userid": "u"}}).encode()
    assert post(live, "wecom", only_mention).json() == {"ignored": True}
    live.model.queue(*["DELETE FROM orders"] * 3)
    refused = post(live, "wecom", wecom_body("删除所有订单的数量统计", chat="chat-z"))
    text = refused.json()["mixed"]["msg_item"][0]["markdown"]["content"]
    assert refused.status_code == 200 and "暂时无法处理该查询" in text
    bare = server_factory()
    closed = post(bare, "wecom", wecom_body(CITY_QUESTION))
    assert closed.status_code == 403 and closed.json()["error"]["code"] == "webhook_not_configured"
