"""The channel interface: verify a request, parse it into an IncomingMessage, render a reply.

An adapter for a chat platform is a few dozen lines on top of `Channel`: it names its message
fields (`parse`) and its reply shape (`render`); signature checking is shared (`HmacSignature`).

Signature scheme (documented in docs/channels.md): the sender puts the Unix time in seconds in
`X-Wenshu-Timestamp` and `HMAC-SHA256(secret, timestamp + "\\n" + raw body)` as lowercase hex in
`X-Wenshu-Signature` (an optional `sha256=` prefix is accepted). Requests older or newer than the
replay window are refused, so a captured request cannot be replayed later.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from wenshu.contracts import AgentResponse

TIMESTAMP_HEADER = "x-wenshu-timestamp"
SIGNATURE_HEADER = "x-wenshu-signature"
DEFAULT_WINDOW_S = 300


@dataclass(frozen=True)
class IncomingMessage:
    """One chat message addressed to the robot."""

    text: str
    user_id: str
    chat_id: str
    thread_id: str | None = None
    message_id: str | None = None

    def conversation_id(self, channel: str) -> str:
        """One conversation per chat (and per thread when the platform has threads)."""
        key = f"{channel}:{self.chat_id}" + (f":{self.thread_id}" if self.thread_id else "")
        return "ch-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 a sender puts in X-Wenshu-Signature."""
    msg = timestamp.encode("ascii") + b"\n" + body
    return hmac.new(secret.encode("utf-8"), msg, hashlib.sha256).hexdigest()


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


@dataclass(frozen=True)
class HmacSignature:
    secret: str
    window_s: int = DEFAULT_WINDOW_S

    def check(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> bool:
        """True only for a well-formed, fresh timestamp and a matching signature (constant-time compare)."""
        ts, given = _header(headers, TIMESTAMP_HEADER), _header(headers, SIGNATURE_HEADER)
        if not self.secret or not ts or not given or not ts.isdigit() or len(ts) > 12:
            return False
        now = time.time() if now is None else now
        if abs(now - int(ts)) > self.window_s:
            return False
        given = given.strip().removeprefix("sha256=").lower()
        return hmac.compare_digest(given, sign(self.secret, ts, body))


class Channel(ABC):
    """One chat platform. `name` is the channel's route name (`/channels/webhook/{name}`)."""

    def __init__(self, name: str, signature: HmacSignature, datasource: str | None = None,
                 push_url: str | None = None):
        self.name = name
        self.signature = signature
        self.datasource = datasource
        self.push_url = push_url  # the robot's incoming webhook: where an answer finished later is posted

    def verify(self, headers: Mapping[str, str], body: bytes) -> bool:
        return self.signature.check(headers, body)

    @abstractmethod
    def parse(self, body: dict) -> IncomingMessage | None:
        """The message to answer, or None for events the robot ignores (joins, images, ...)."""

    @abstractmethod
    def render(self, response: AgentResponse, lang: str) -> dict:
        """The reply payload the platform expects."""

    def handshake(self, body: dict) -> dict | None:
        """A reply for a platform's URL-verification request, else None."""
        return None
