"""The `openai` provider against a real OpenAI-compatible HTTP server on loopback that fails on purpose: it
answers 500 a given number of times, or sleeps past the client's timeout. The attempts it receives are counted:
the retries are bounded by WENSHU_LLM_MAX_RETRIES, spaced by a growing backoff, and what still fails is one
clear error with a stable code, in English and Chinese."""

from __future__ import annotations

import threading
import time
from http.server import ThreadingHTTPServer

import pytest

from test_openai_provider import _Handler as OpenAICompatible
from wenshu.agent.service import Agent
from wenshu.contracts import AgentRequest
from wenshu.settings import Settings


class Endpoint(ThreadingHTTPServer):
    """Fails the first `failures` requests (HTTP 500, or a sleep of `sleep_s` when set), then answers."""

    daemon_threads = True

    def __init__(self, failures: int, sleep_s: float = 0.0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.failures, self.sleep_s = failures, sleep_s
        self.attempts: list[float] = []  # when each request arrived
        self.stopped = threading.Event()  # ends the sleeps of a stopping server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


class _Handler(OpenAICompatible):
    """The chat endpoint of test_openai_provider.py (which streams SQL), failing first as its server says."""

    server: Endpoint

    def do_POST(self):
        body = self.read_body()
        self.server.attempts.append(time.monotonic())
        if len(self.server.attempts) > self.server.failures:
            super().do_POST(body)
        elif self.server.sleep_s:
            self.server.stopped.wait(self.server.sleep_s)
        else:
            self.send_json(500, {"error": {"message": "upstream exploded", "type": "server_error"}})


@pytest.fixture
def endpoint():
    started: list[Endpoint] = []

    def start(failures: int, sleep_s: float = 0.0) -> Endpoint:
        server = Endpoint(failures, sleep_s)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stopped.set()
        server.shutdown()
        server.server_close()


def _ask(store, server: Endpoint, question: str, **settings):
    agent = Agent(Settings(llm_base_url=server.url, llm_model="m", **settings), store)
    started = time.monotonic()
    return agent.ask(AgentRequest(message=question)), time.monotonic() - started


def test_5xx_is_retried_with_backoff_then_answered(store, endpoint):
    server = endpoint(failures=2)
    resp, _ = _ask(store, server, "how many regions are there", llm_max_retries=2)
    assert resp.error is None and resp.rows == [[7]]
    assert len(server.attempts) == 3
    gaps = [b - a for a, b in zip(server.attempts, server.attempts[1:])]
    assert 0.3 <= gaps[0] < gaps[1]  # 0.5 s then 1 s, less up to 25 % jitter


def test_5xx_past_the_retries_is_one_clear_error(store, endpoint):
    server = endpoint(failures=100)
    resp, seconds = _ask(store, server, "一共有多少个大区", llm_max_retries=1)
    assert len(server.attempts) == 2 and seconds < 10
    assert resp.error.code == "model_endpoint_error" and resp.rows == []
    assert f"模型服务 {server.url} 返回 HTTP 500（共尝试 2 次）" in resp.error.message
    assert "Traceback" not in resp.answer


def test_a_timeout_past_the_retries_is_one_clear_error(store, endpoint):
    server = endpoint(failures=100, sleep_s=5)
    resp, seconds = _ask(store, server, "how many regions are there", llm_max_retries=1, llm_timeout_s=0.5)
    assert len(server.attempts) == 2 and seconds < 4
    assert resp.error.code == "model_timeout"
    assert resp.error.message == (f"The model endpoint {server.url} did not answer within 0.5 s (2 attempts); check "
                                  "that the model server is up and not overloaded, or raise WENSHU_LLM_TIMEOUT_S.")
