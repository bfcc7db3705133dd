"""A WeCom-style (企业微信) group robot: JSON callback in, a markdown + image reply out.

Incoming: {"msgid", "chatid", "chattype", "from": {"userid"}, "msgtype": "text", "text": {"content"}}
(the robot's @mention at the start of the text is dropped). Reply: a `mixed` message whose items are
the Markdown answer and, when there is a chart, an image as base64 + md5 (the robot image format).
"""

from __future__ import annotations

import re

from wenshu.channels.base import Channel, IncomingMessage
from wenshu.channels.chart_image import render_png
from wenshu.channels.markdown import response_markdown
from wenshu.contracts import AgentResponse

CHAT_ROWS = 10
_MENTION = re.compile(r"^\s*(@\S+\s+)+")


def strip_mentions(text: str) -> str:
    return _MENTION.sub("", text or "").strip()


class WeComChannel(Channel):
    kind = "wecom"

    def parse(self, body: dict) -> IncomingMessage | None:
        if body.get("msgtype") != "text":
            return None
        text = strip_mentions(str((body.get("text") or {}).get("content") or ""))
        sender = body.get("from") or {}
        user = sender.get("userid") if isinstance(sender, dict) else None
        if not text or not user:
            return None
        return IncomingMessage(text=text, user_id=str(user), chat_id=str(body.get("chatid") or user),
                               message_id=body.get("msgid"))

    def render(self, response: AgentResponse, lang: str) -> dict:
        items = [{"msgtype": "markdown", "markdown": {"content": response_markdown(response, lang, CHAT_ROWS)}}]
        image = render_png(response.chart)
        if image is not None:
            items.append({"msgtype": "image", "image": {"base64": image.base64, "md5": image.md5}})
        return {"msgtype": "mixed", "mixed": {"msg_item": items}}
