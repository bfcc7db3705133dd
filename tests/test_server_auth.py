"""Bearer tokens, per-user isolation (another user's ids answer 404), datasource grants and rate limits."""

from __future__ import annotations

import pytest

from fixtures_server import CITY_QUESTION


@pytest.fixture
def users(settings):
    """Tokens for alice and bob (every datasource) and carol (only a datasource that does not exist)."""
    from wenshu.bootstrap import open_store

    with open_store(settings) as store:
        tokens = {name: store.users.create_token(name)[1] for name in ("alice", "bob", "carol")}
        store.users.grant("alice", "*")
        store.users.grant("bob", "*")
        store.users.grant("carol", "warehouse")
        revoked, tokens["revoked"] = store.users.create_token("dora")
        store.users.revoke(revoked.id)
    return tokens


def error_code(resp) -> str:
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return body["error"]["code"]


def test_tokens_are_required_once_they_exist(server_factory, users):
    live = server_factory()
    anonymous = live.client().get("/api/conversations")
    assert anonymous.status_code == 401 and error_code(anonymous) == "auth_required"
    for bad in ("wsk_not-a-real-token", users["revoked"], "garbage"):
        resp = live.client(headers={"Authorization": f"Bearer {bad}"}).get("/api/meta")
        assert resp.status_code == 401 and error_code(resp) == "token_invalid", bad
    basic = live.client(headers={"Authorization": "Basic YWxpY2U6eA=="}).get("/api/meta")
    assert basic.status_code == 401 and error_code(basic) == "token_invalid"
    meta = live.client(users["alice"]).get("/api/meta").json()
    assert meta["user"] == "alice" and meta["auth_required"] is True
    assert live.client().get("/healthz").status_code == 200  # liveness stays open


def test_an_invalid_token_is_refused_even_without_configured_auth(live_server):
    resp = live_server.client("wsk_made-up").get("/api/conversations")
    assert resp.status_code == 401 and error_code(resp) == "token_invalid"


def test_users_cannot_see_each_others_anything(server_factory, users):
    live = server_factory()
    alice, bob = live.client(users["alice"]), live.client(users["bob"])
    asked = alice.post("/api/ask", json={"message": CITY_QUESTION}).json()
    cid = asked["conversation_id"]
    task_id = alice.post("/api/tasks", json={"message": CITY_QUESTION}).json()["task_id"]
    live.wait_idle()
    assert len(alice.get("/api/conversations").json()["items"]) == 2
    assert len(alice.get("/api/audit").json()["items"]) == 2

    fake_id = "0123456789abcdef0123456789abcdef"
    unknown = bob.get(f"/api/conversations/{fake_id}").json()  # what an id that does not exist gets
    same_as_unknown = {"error": {"code": "conversation_not_found",
                                 "message": unknown["error"]["message"].replace(fake_id, cid)}}
    for resp in (
        bob.get(f"/api/conversations/{cid}"),
        bob.patch(f"/api/conversations/{cid}", json={"title": "mine now"}),
        bob.delete(f"/api/conversations/{cid}"),
        bob.post(f"/api/conversations/{cid}/messages", json={"message": CITY_QUESTION}),
        bob.post(f"/api/conversations/{cid}/stop"),
        bob.post("/api/ask", json={"message": CITY_QUESTION, "conversation_id": cid}),
        bob.post("/api/tasks", json={"message": CITY_QUESTION, "conversation_id": cid}),
    ):
        assert resp.status_code == 404 and resp.json() == same_as_unknown
    for resp in (bob.get(f"/api/tasks/{task_id}"), bob.delete(f"/api/tasks/{task_id}")):
        assert resp.status_code == 404 and error_code(resp) == "task_not_found"
    assert bob.get("/api/conversations").json()["items"] == []
    assert bob.get("/api/audit").json()["items"] == []
    assert bob.get("/api/audit", params={"user": "alice"}).json()["items"] == []
    # alice's things are untouched
    assert alice.get(f"/api/conversations/{cid}").json()["title"] == asked["answer"][:50]
    assert alice.get(f"/api/tasks/{task_id}").json()["status"] == "done"
    assert {r["user_id"] for r in alice.get("/api/audit").json()["items"]} == {"alice"}


def test_datasource_grants(server_factory, users):
    live = server_factory()
    carol = live.client(users["carol"])
    assert carol.get("/api/datasources").json()["items"] == []
    assert carol.get("/api/meta").json()["datasources"] == []
    for resp in (carol.post("/api/ask", json={"message": CITY_QUESTION}),
                 carol.post("/api/conversations", json={"datasource": "demo"}),
                 carol.post("/api/tasks", json={"message": CITY_QUESTION, "datasource": "demo"}),
                 carol.post("/api/datasources/demo/sync"),
                 carol.delete("/api/datasources/demo")):
        assert resp.status_code == 404 and error_code(resp) == "unknown_datasource"
        assert "(known: none)" in resp.json()["error"]["message"]  # the list of names leaks nothing
    added = carol.post("/api/datasources", json={"name": "mine", "url": "sqlite:////tmp/x.sqlite"})
    assert added.status_code == 403 and error_code(added) == "forbidden"
    assert live.client(users["alice"]).get("/api/datasources").json()["items"][0]["name"] == "demo"


def test_rate_limit_per_token(server_factory, users):
    live = server_factory(rate_limit_per_minute=3)
    alice, bob = live.client(users["alice"]), live.client(users["bob"])
    assert [alice.get("/api/meta").status_code for _ in range(3)] == [200, 200, 200]
    limited = alice.get("/api/conversations")
    assert limited.status_code == 429 and error_code(limited) == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 20
    assert bob.get("/api/meta").status_code == 200  # another token has its own budget
    assert alice.get("/healthz").status_code == 200  # health checks are not limited
    zh = alice.get("/api/meta", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert zh.status_code == 429 and "秒后重试" in zh.json()["error"]["message"]


def test_auth_off_by_setting_answers_without_the_store_and_still_limits_and_refuses_bad_tokens(server_factory, users):
    """With `auth_required` set false, a request without a token is the local user without asking the store
    (current_user stays on the event loop); the per-client rate limit and the refusal of a bad token hold."""
    live = server_factory(auth_required=False, rate_limit_per_minute=2)
    anonymous = live.client()
    meta = anonymous.get("/api/meta")
    assert meta.status_code == 200 and meta.json()["user"] == "local" and meta.json()["auth_required"] is False
    assert live.client(users["alice"]).get("/api/meta").json()["user"] == "alice"  # a token still names its user
    assert error_code(live.client("wsk_not-a-token").get("/api/meta")) == "token_invalid"
    models = live.client("wsk_not-a-token").get("/v1/models")  # /v1 ignores an API key when none is required
    assert models.status_code == 200 and models.json()["data"]
    limited = anonymous.get("/api/conversations")  # this client's third request this minute
    assert limited.status_code == 429 and error_code(limited) == "rate_limited"
