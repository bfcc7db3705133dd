"""Bad input gets one clear error in the shared shape: malformed JSON, invalid bodies, huge payloads,
unknown ids and routes, wrong methods; in the request's language."""

from __future__ import annotations

import pytest

from fixtures_server import CITY_QUESTION

POST_JSON_ROUTES = ["/api/ask", "/api/conversations", "/api/tasks", "/api/datasources", "/api/examples",
                    "/api/glossary"]


def shaped(resp, status: int, code: str | None = None) -> dict:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["message"] and "Traceback" not in body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


@pytest.fixture
def small_server(server_factory):
    return server_factory(server_max_body_bytes=4096)


def test_malformed_json_is_400_on_every_json_route(small_server):
    http = small_server.client()
    cid = http.post("/api/conversations", json={}).json()["id"]
    for url in [*POST_JSON_ROUTES, f"/api/conversations/{cid}/messages"]:
        resp = http.post(url, content=b'{"message": "unterminated', headers={"Content-Type": "application/json"})
        shaped(resp, 400, "input_invalid_json")
    resp = http.patch(f"/api/conversations/{cid}", content=b"{title:}", headers={"Content-Type": "application/json"})
    shaped(resp, 400, "input_invalid_json")


def test_invalid_bodies_are_422_and_name_the_field(small_server):
    http = small_server.client()
    missing = shaped(http.post("/api/ask", json={"question": "wrong field"}), 422, "input_invalid")
    assert "message" in missing["message"]
    shaped(http.post("/api/ask", json=["a", "list"]), 422, "input_invalid")
    shaped(http.post("/api/ask", json={"message": 42}), 422, "input_invalid")
    shaped(http.patch("/api/conversations/x", json={}), 422, "input_invalid")
    shaped(http.get("/api/conversations", params={"limit": "many"}), 422, "input_invalid")
    shaped(http.post("/api/ask", json={"message": "  "}), 400, "empty_question")


def test_a_conversation_id_longer_than_the_id_column_is_422(small_server):
    from wenshu.storage.schema import ID_LEN

    http = small_server.client()
    too_long = {"message": CITY_QUESTION, "conversation_id": "c" * (ID_LEN + 1)}
    for url in ("/api/ask", "/api/tasks"):
        err = shaped(http.post(url, json=too_long), 422, "input_invalid")
        assert "conversation_id" in err["message"] and str(ID_LEN) in err["message"]
    zh = shaped(http.post("/api/ask", json=too_long, headers={"Accept-Language": "zh-CN"}), 422, "input_invalid")
    assert "conversation_id" in zh["message"] and "输入无效" in zh["message"]
    longest = "c" * ID_LEN  # a new id of the longest allowed length is taken as it is
    assert http.post("/api/ask", json={"message": CITY_QUESTION, "conversation_id": longest}).json()[
        "conversation_id"] == longest
    assert http.get(f"/api/conversations/{longest}").status_code == 200


def test_huge_payloads_are_413(small_server):
    http = small_server.client()
    big = {"message": "x" * 10_000}
    shaped(http.post("/api/ask", json=big), 413, "payload_too_large")

    def chunks():  # no Content-Length: the limit is counted as the body arrives
        yield b'{"message": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    resp = http.post("/api/tasks", content=chunks(), headers={"Content-Type": "application/json"})
    shaped(resp, 413, "payload_too_large")
    assert http.get("/healthz").status_code == 200  # the server is fine afterwards
    assert small_server.state.runner.active_count() == 0


def test_unknown_ids_are_404_everywhere(live_server):
    http = live_server.client()
    cases = [
        ("GET", "/api/conversations/nope", "conversation_not_found"),
        ("PATCH", "/api/conversations/nope", "conversation_not_found"),
        ("DELETE", "/api/conversations/nope", "conversation_not_found"),
        ("POST", "/api/conversations/nope/messages", "conversation_not_found"),
        ("POST", "/api/conversations/nope/stop", "conversation_not_found"),
        ("GET", "/api/tasks/nope", "task_not_found"),
        ("DELETE", "/api/tasks/nope", "task_not_found"),
        ("POST", "/api/datasources/nope/sync", "unknown_datasource"),
        ("DELETE", "/api/datasources/nope", "unknown_datasource"),
        ("DELETE", "/api/examples/987654", "example_not_found"),
        ("DELETE", "/api/glossary/nope", "glossary_term_not_found"),
        ("GET", "/api/no-such-route", "not_found"),
    ]
    body = {"message": CITY_QUESTION, "title": "t"}
    for method, url, code in cases:
        shaped(http.request(method, url, json=body if method in ("POST", "PATCH") else None), 404, code)
    shaped(http.post("/api/ask", json={"message": CITY_QUESTION, "datasource": "nope"}), 404, "unknown_datasource")


def test_wrong_methods_are_405(live_server):
    http = live_server.client()
    for method, url in [("DELETE", "/healthz"), ("GET", "/api/ask"), ("PUT", "/api/conversations"),
                        ("GET", "/api/conversations/x/messages"), ("POST", "/api/meta")]:
        shaped(http.request(method, url), 405, "method_not_allowed")


def test_errors_speak_the_requests_language(live_server):
    http = live_server.client()
    zh = shaped(http.get("/api/conversations/nope", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}), 404)
    assert zh["message"] == "会话「nope」不存在。"
    assert shaped(http.get("/api/conversations/nope", params={"lang": "zh"}), 404)["message"] == zh["message"]
    en = shaped(http.get("/api/conversations/nope", headers={"Accept-Language": "en-US,zh;q=0.5"}), 404)
    assert en["message"] == "There is no conversation 'nope'."
    bad_json = http.post("/api/ask?lang=zh", content=b"{", headers={"Content-Type": "application/json"})
    assert shaped(bad_json, 400)["message"] == "请求体不是有效的 JSON。"
    assert "没有这个接口" in shaped(http.get("/api/nowhere", params={"lang": "zh"}), 404)["message"]
