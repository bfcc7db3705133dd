"""A Feishu-style (飞书) bot: event v2 callback in, a rich-text post + image reply out.

Incoming: {"schema": "2.0", "header": {"event_type": "im.message.receive_v1"}, "event": {"sender":
{"sender_id": {"open_id"}}, "message": {"chat_id", "thread_id"?, "message_type": "text",
"content": "{\"text\": \"@_user_1 ...\"}"}}}. A URL-verification request gets its challenge back.
"""

from __future__ import annotations

import json
import re

from wenshu.channels.base import Channel, IncomingMessage
from wenshu.channels.chart_image import render_png
from wenshu.channels.markdown import response_markdown
from wenshu.contracts import AgentResponse
from wenshu.i18n import pick

CHAT_ROWS = 10
_MENTION = re.compile(r"@_user_\d+\s*")


class FeishuChannel(Channel):
    kind = "feishu"

    def handshake(self, body: dict) -> dict | None:
        if body.get("type") == "url_verification" and isinstance(body.get("challenge"), str):
            return {"challenge": body["challenge"]}
        return None

    def parse(self, body: dict) -> IncomingMessage | None:
        header, event = body.get("header") or {}, body.get("event") or {}
        message = event.get("message") or {}
        if header.get("event_type") != "im.message.receive_v1" or message.get("message_type") != "text":
            return None
        try:
            text = str(json.loads(message.get("content") or "{}").get("text") or "")
        except (ValueError, AttributeError):
            return None
        text = _MENTION.sub("", text).strip()
        sender = (event.get("sender") or {}).get("sender_id") or {}
        user = sender.get("open_id") or sender.get("user_id")
        if not text or not user or not message.get("chat_id"):
            return None
        return IncomingMessage(text=text, user_id=str(user), chat_id=str(message["chat_id"]),
                               thread_id=message.get("thread_id") or message.get("root_id"),
                               message_id=message.get("message_id"))

    def render(self, response: AgentResponse, lang: str) -> dict:
        post = {"title": pick(lang, "Wenshu", "问数"),
                "content": [[{"tag": "md", "text": response_markdown(response, lang, CHAT_ROWS)}]]}
        reply: dict = {"msg_type": "post", "content": {"post": {"zh_cn" if lang == "zh" else "en_us": post}}}
        image = render_png(response.chart)
        if image is not None:
            reply["image"] = {"base64": image.base64, "md5": image.md5}
        return reply
