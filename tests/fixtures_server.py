"""A real Wenshu HTTP server for tests: uvicorn on a free loopback port, in a thread of the test process,
with a temporary WENSHU_HOME (the `home` fixture) and the scripted fake model.

    def test_x(live_server):
        with live_server.client() as http:
            http.post("/api/ask", json={"message": "..."})

`server_factory(**settings)` starts more (or differently configured) servers; all stop at teardown.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
import uvicorn

CITY_TOP = (
    "SELECT c.city_name AS 城市, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id = c.city_id "
    "WHERE o.status = 1 GROUP BY c.city_name ORDER BY 订单量 DESC LIMIT 10"
)
CITY_QUESTION = "每个城市的订单量Top10"


@dataclass
class LiveServer:
    url: str
    app: object
    model: object
    server: uvicorn.Server
    thread: threading.Thread
    clients: list[httpx.Client] = field(default_factory=list)

    @property
    def state(self):
        return self.app.state.wenshu

    def client(self, token: str | None = None, **kw) -> httpx.Client:
        headers = ({"Authorization": f"Bearer {token}"} if token else {}) | kw.pop("headers", {})
        c = httpx.Client(base_url=self.url, headers=headers, timeout=kw.pop("timeout", 30.0), **kw)
        self.clients.append(c)
        return c

    def wait_idle(self, timeout_s: float = 10.0) -> int:
        """Wait until no answer is running; returns the active count left."""
        deadline = time.monotonic() + timeout_s
        while self.state.runner.active_count() and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.state.runner.active_count()

    def stop(self) -> None:
        for c in self.clients:
            c.close()
        self.server.should_exit = True
        self.thread.join(timeout=15)


def start_server(settings, model, bind_host: str = "127.0.0.1") -> LiveServer:
    from wenshu.providers.base import ModelClient
    from wenshu.server import create_app

    app = create_app(settings, models=ModelClient({"fast": model, "strong": model}, provider="fake"),
                     bind_host=bind_host)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    return LiveServer(f"http://127.0.0.1:{port}", app, model, server, thread)


@pytest.fixture
def server_factory(home, fake_model):
    """start(model=None, bind_host="127.0.0.1", **settings) -> LiveServer; rate limiting is off unless given."""
    from wenshu.settings import Settings

    started: list[LiveServer] = []

    def start(model=None, bind_host: str = "127.0.0.1", **overrides) -> LiveServer:
        overrides.setdefault("rate_limit_per_minute", 0)
        model = model or fake_model
        if model.default is None:
            model.default = CITY_TOP
        live = start_server(Settings(**overrides), model, bind_host)
        started.append(live)
        return live

    yield start
    for live in started:
        live.stop()


@pytest.fixture
def live_server(server_factory) -> LiveServer:
    return server_factory()


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, object]]:
    """(event, data) pairs of a text/event-stream; `: ping` comments come out as ("ping", None)."""
    kind, data = None, []
    for line in lines:
        if line.startswith(":"):
            yield "ping", None
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and kind is not None:
            yield kind, json.loads("\n".join(data)) if data else None
            kind, data = None, []


def stream_events(http: httpx.Client, conversation_id: str, message: str, resource: str = "messages",
                  **body) -> list[tuple[str, object]]:
    """POST a message (to the data pipeline, or with resource="assistant" to the assistant) and read its whole
    event stream."""
    url = f"/api/conversations/{conversation_id}/{resource}"
    with http.stream("POST", url, json={"message": message, **body}) as resp:
        assert resp.status_code == 200, resp.read()
        assert resp.headers["content-type"].startswith("text/event-stream")
        return list(parse_sse(resp.iter_lines()))
