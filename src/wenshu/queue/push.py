"""Pushing a finished answer to the chat channel its question came from (the channel's `push_url`: the
robot's incoming webhook, e.g. a WeCom group robot's send URL or a Feishu custom bot's).

The body is the channel's own reply payload (`Channel.render`: the same as a reply in the webhook's
response), signed like the requests Wenshu accepts (`X-Wenshu-Timestamp`, `X-Wenshu-Signature`: HMAC-SHA256
of timestamp + newline + body with the channel's secret), so a receiver can check it came from Wenshu.
A push is tried `ATTEMPTS` times with a short backoff; a push that still fails is logged, and the answer stays
in the conversation and in the task.
"""

from __future__ import annotations

import json
import logging
import time

import httpx

from wenshu.channels.base import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from wenshu.channels.registry import build_channel
from wenshu.contracts import AgentResponse

log = logging.getLogger("wenshu.queue")
ATTEMPTS = 3
TIMEOUT_S = 10.0


def push_answer(settings, channel_name: str, response: AgentResponse, lang: str) -> bool:
    """POST the rendered answer to the channel's push_url; whether it was accepted (2xx)."""
    channel = build_channel(channel_name, settings)
    if not channel.push_url:
        log.warning("channel %s has no push_url: the answer in %s is not pushed", channel_name,
                    response.conversation_id)
        return False
    body = json.dumps(channel.render(response, lang), ensure_ascii=False).encode("utf-8")
    for attempt in range(ATTEMPTS):
        ts = str(int(time.time()))
        headers = {"content-type": "application/json", TIMESTAMP_HEADER: ts,
                   SIGNATURE_HEADER: sign(channel.signature.secret, ts, body)}
        try:
            reply = httpx.post(channel.push_url, content=body, headers=headers, timeout=TIMEOUT_S)
            if reply.is_success:
                return True
            detail = f"HTTP {reply.status_code}"
        except httpx.HTTPError as exc:
            detail = str(exc) or type(exc).__name__
        log.warning("pushing the answer in %s to channel %s failed (%s), attempt %d of %d", response.conversation_id,
                    channel_name, detail, attempt + 1, ATTEMPTS)
        if attempt + 1 < ATTEMPTS:
            time.sleep(0.5 * 2**attempt)
    return False
