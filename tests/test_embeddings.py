"""Embedding providers: the embedded USE model and an OpenAI-compatible endpoint on a loopback port."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from wenshu.errors import ModelFailure, ModelMissing
from wenshu.providers.embeddings import OpenAIEmbedder, USEEmbedder, get_embedder
from wenshu.settings import Settings


def test_embedded_model_gives_unit_vectors_and_meaning(home):
    emb = get_embedder(Settings())
    assert isinstance(emb, USEEmbedder)
    vecs = emb.embed(["订单金额", "order amount", "weather forecast for tomorrow"])
    assert vecs.shape == (3, 512) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2]  # cross-lingual: the same meaning is closer
    assert emb.embed([]).shape == (0, 512)


def test_embedder_is_loaded_once_per_process(home):
    assert get_embedder(Settings()) is get_embedder(Settings())


def test_provider_none_and_unknown(home):
    assert get_embedder(Settings(embed_provider="none")) is None
    with pytest.raises(ModelMissing):
        get_embedder(Settings(embed_provider="openai"))  # no endpoint configured


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            return
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
                for i, t in enumerate(body["input"])]
        payload = json.dumps({"object": "list", "data": data[::-1], "model": body["model"],
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_openai_compatible_endpoint(endpoint, home):
    emb = get_embedder(Settings(embed_provider="openai", embed_base_url=endpoint, embed_model="m1"))
    assert isinstance(emb, OpenAIEmbedder) and emb.name == "openai:m1"
    vecs = emb.embed(["a", "abc"])  # the server answers out of order: rows follow `index`
    assert vecs.shape == (2, 3)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert vecs[1][0] > vecs[0][0]


def test_openai_endpoint_failure_is_a_clear_error(endpoint):
    with pytest.raises(ModelFailure) as err:
        OpenAIEmbedder(endpoint, "broken").embed(["x"])
    assert err.value.code == "model_error" and "embedding" in err.value.message("en")
