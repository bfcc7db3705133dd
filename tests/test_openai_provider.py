"""The OpenAI-compatible provider against a real HTTP server on loopback that speaks the chat protocol."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wenshu.contracts import AgentRequest

SQL = "SELECT COUNT(*) AS n FROM regions"


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def send_json(self, status: int, out: dict) -> None:
        data = json.dumps(out).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def do_POST(self, body: dict | None = None):
        body = body or self.read_body()
        _Handler.seen.append(body)
        base = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"]}
        if not body.get("stream"):
            out = {**base, "choices": [{"index": 0, "message": {"role": "assistant", "content": SQL},
                                        "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109}}
            self.send_json(200, out)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        chunk = {**base, "object": "chat.completion.chunk"}
        for piece in (SQL[:10], SQL[10:]):
            delta = {**chunk, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(delta)}\n\n".encode())
        usage = {**chunk, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.seen.clear()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_agent_answers_through_an_openai_compatible_endpoint(home, store, endpoint, monkeypatch):
    from wenshu.agent.service import Agent
    from wenshu.settings import Settings

    settings = Settings(llm_base_url=endpoint, llm_model="big-coder", llm_fast_model="small-chat")
    resp = Agent(settings, store).ask(AgentRequest(message="how many regions are there"))
    assert resp.error is None and resp.rows == [[7]]
    assert resp.usage.llm_calls == 1 and resp.usage.prompt_tokens == 100
    assert _Handler.seen[0]["model"] == "big-coder" and _Handler.seen[0]["stream"] is True


def test_roles_pick_their_models(home, endpoint):
    from wenshu.providers.registry import resolve
    from wenshu.settings import Settings

    client = resolve(Settings(llm_base_url=endpoint, llm_model="m", llm_fast_model="fast-m"))
    assert client.provider == "openai"
    assert client.model("fast").model_name == "fast-m" and client.model("strong").model_name == "m"


def test_missing_model_name_is_a_clear_error(home):
    from wenshu.errors import ModelMissing
    from wenshu.providers.registry import resolve
    from wenshu.settings import Settings

    with pytest.raises(ModelMissing) as err:
        resolve(Settings(llm_base_url="http://127.0.0.1:9/v1"))
    assert "WENSHU_LLM_MODEL" in err.value.en
