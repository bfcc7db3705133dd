"""Channel building blocks without a server: Markdown answers, HMAC signatures, message parsing, chart PNGs."""

from __future__ import annotations

import base64
import hashlib
import json
import time

import pytest

from wenshu.channels.base import HmacSignature, IncomingMessage, sign
from wenshu.channels.chart_image import prepare_spec, render_png
from wenshu.channels.feishu import FeishuChannel
from wenshu.channels.markdown import markdown_table, response_markdown
from wenshu.channels.registry import build_channel
from wenshu.channels.wecom import WeComChannel, strip_mentions
from wenshu.contracts import AgentResponse
from wenshu.errors import NotFound, WebhookNotConfigured
from wenshu.settings import Settings
from wenshu.sql.charts import choose_chart

SECRET = "s3cret-for-tests"


def signed_headers(body: bytes, secret: str = SECRET, ts: int | None = None) -> dict:
    ts = str(int(time.time()) if ts is None else ts)
    return {"X-Wenshu-Timestamp": ts, "X-Wenshu-Signature": "sha256=" + sign(secret, ts, body)}


def city_response(n: int = 25) -> AgentResponse:
    rows = [[f"城市{i}", 1000 - i] for i in range(n)]
    return AgentResponse(conversation_id="c1", answer=f"共 {n} 行。", sql="SELECT city, orders FROM t",
                         columns=["城市", "订单量"], rows=rows, row_count=n,
                         chart=choose_chart(["城市", "订单量"], rows[:8]))


def test_markdown_has_answer_sql_block_table_and_total():
    md = response_markdown(city_response(25), "en")
    answer, sql, table, note = md.split("\n\n")
    assert answer == "共 25 行。"
    assert sql == "```sql\nSELECT city, orders FROM t\n```"
    lines = table.splitlines()
    assert lines[0] == "| 城市 | 订单量 |" and lines[1] == "| --- | --- |"
    assert len(lines) == 2 + 20 and lines[2] == "| 城市0 | 1000 |"
    assert note == "Showing the first 20 of 25 rows."
    assert "共 25 行" in response_markdown(city_response(25), "zh").splitlines()[-1]


def test_markdown_short_result_has_no_note_and_error_has_no_table():
    assert "Showing" not in response_markdown(city_response(3), "en")
    err = AgentResponse(conversation_id="c", answer="Cannot answer.", error={"code": "unanswerable", "message": "x"})
    assert response_markdown(err, "en") == "Cannot answer."


def test_table_cells_cannot_break_the_table():
    table = markdown_table(["a|b", "c"], [["x|y\nz", None], ["```", "t" * 200]])
    lines = table.splitlines()
    assert len(lines) == 4
    assert lines[0] == "| a\\|b | c |"
    assert lines[2] == "| x\\|y z | NULL |"
    assert "```" not in table and lines[3].endswith("… |")


def test_signature_accepts_fresh_signed_and_refuses_forged_stale_or_missing():
    body = b'{"msgtype":"text"}'
    check = HmacSignature(SECRET, window_s=300)
    assert check.check(signed_headers(body), body)
    assert check.check({k.lower(): v for k, v in signed_headers(body).items()}, body)
    assert not check.check(signed_headers(body, secret="other"), body)
    assert not check.check(signed_headers(body), body + b" ")
    assert not check.check(signed_headers(body, ts=int(time.time()) - 301), body)
    assert not check.check(signed_headers(body, ts=int(time.time()) + 301), body)
    assert not check.check({}, body)
    assert not check.check({"X-Wenshu-Timestamp": "abc", "X-Wenshu-Signature": "00"}, body)
    assert not HmacSignature("", 300).check(signed_headers(body, secret=""), body)


def test_wecom_parse_and_conversation_per_chat():
    ch = WeComChannel("wecom", HmacSignature(SECRET))
    msg = ch.parse({"msgtype": "text", "text": {"content": "@问数 每个城市的订单量"}, "from": {"userid": "zhang"},
                    "chatid": "chat-1", "msgid": "m1"})
    assert msg == IncomingMessage(text="每个城市的订单量", user_id="zhang", chat_id="chat-1", message_id="m1")
    other = IncomingMessage(text="x", user_id="li", chat_id="chat-2")
    assert msg.conversation_id("wecom") != other.conversation_id("wecom")
    assert msg.conversation_id("wecom") == IncomingMessage("y", "li", "chat-1").conversation_id("wecom")
    assert len(msg.conversation_id("wecom")) <= 32
    assert ch.parse({"msgtype": "image", "from": {"userid": "u"}}) is None
    assert ch.parse({"msgtype": "text", "text": {"content": "@bot  "}, "from": {"userid": "u"}}) is None
    assert strip_mentions("@a @b hello @c") == "hello @c"


def test_feishu_parse_thread_and_handshake():
    ch = FeishuChannel("feishu", HmacSignature(SECRET))
    assert ch.handshake({"type": "url_verification", "challenge": "abc"}) == {"challenge": "abc"}
    event = {"header": {"event_type": "im.message.receive_v1"},
             "event": {"sender": {"sender_id": {"open_id": "ou_1"}},
                       "message": {"chat_id": "oc_1", "thread_id": "t1", "message_type": "text",
                                   "content": json.dumps({"text": "@_user_1 top cities"})}}}
    msg = ch.parse(event)
    assert (msg.text, msg.user_id, msg.chat_id, msg.thread_id) == ("top cities", "ou_1", "oc_1", "t1")
    assert msg.conversation_id("feishu") != IncomingMessage("x", "ou_1", "oc_1").conversation_id("feishu")
    event["event"]["message"]["content"] = "not json"
    assert ch.parse(event) is None


def test_chart_png_renders_offline_with_cjk_labels():
    resp = city_response(8)
    image = render_png(resp.chart)
    assert image is not None and image.png.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(image.png[16:20], "big")
    assert width >= 480  # sized for a chat message (480 px at scale 2 is wider still)
    assert base64.b64decode(image.base64) == image.png
    assert image.md5 == hashlib.md5(image.png).hexdigest()
    assert render_png(None) is None
    assert render_png({"mark": "nonsense-mark", "data": {"values": []}}) is None


def test_prepare_spec_sizes_and_keeps_the_original():
    spec = city_response(8).chart
    out = prepare_spec(spec, cjk_font=True)
    assert out["width"] == 480 and out["config"]["font"] == "Noto Sans CJK SC" and "width" not in spec


def test_wecom_reply_has_markdown_and_image():
    reply = WeComChannel("wecom", HmacSignature(SECRET)).render(city_response(8), "zh")
    items = reply["mixed"]["msg_item"]
    assert items[0]["msgtype"] == "markdown" and "```sql" in items[0]["markdown"]["content"]
    assert items[1]["msgtype"] == "image"
    png = base64.b64decode(items[1]["image"]["base64"])
    assert png.startswith(b"\x89PNG") and hashlib.md5(png).hexdigest() == items[1]["image"]["md5"]


def test_registry_resolves_secrets_and_refuses_unconfigured(home):
    with pytest.raises(WebhookNotConfigured):
        build_channel("wecom", Settings())
    with pytest.raises(NotFound):
        build_channel("nope", Settings(webhook_secret=SECRET))
    settings = Settings(webhook_secret="shared", webhook_channels={
        "ops": {"kind": "feishu", "secret": "own", "datasource": "demo", "window_s": "60"}})
    ops = build_channel("ops", settings)
    assert isinstance(ops, FeishuChannel) and ops.signature == HmacSignature("own", 60) and ops.datasource == "demo"
    assert build_channel("wecom", settings).signature.secret == "shared"
    with pytest.raises(NotFound):
        build_channel("bad", Settings(webhook_channels={"bad": {"kind": "unknown", "secret": "x"}}))
