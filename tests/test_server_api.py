"""The REST API over a real uvicorn server (scripted fake model, real demo SQLite): ask, conversations,
datasources, audit, meta, health, metrics, OpenAPI, the web UI placeholder, examples and glossary."""

from __future__ import annotations

import sqlite3

from fixtures_server import CITY_QUESTION, CITY_TOP


def gold(home, sql):
    with sqlite3.connect(home / "data" / "demo.sqlite") as conn:
        return [list(r) for r in conn.execute(sql).fetchall()]


def test_ask_returns_the_agent_response_and_stores_it(live_server, home):
    http = live_server.client()
    resp = http.post("/api/ask", json={"message": CITY_QUESTION})
    assert resp.status_code == 200
    body = resp.json()
    assert body["error"] is None and body["columns"] == ["城市", "订单量"]
    assert body["rows"] == gold(home, CITY_TOP)
    assert body["chart"] and body["sql"].startswith("SELECT")
    assert [t["node"] for t in body["trace"]][0] == "intent"
    detail = http.get(f"/api/conversations/{body['conversation_id']}").json()
    user_msg, answer = detail["messages"]
    assert (user_msg["role"], user_msg["content"]) == ("user", CITY_QUESTION)
    assert answer["id"] == body["message_id"] and answer["status"] == "ok" and answer["sql"] == body["sql"]
    assert answer["payload"]["rows"] == body["rows"] and answer["payload"]["chart"] == body["chart"]


def test_follow_up_in_the_same_conversation_uses_its_history(live_server):
    http = live_server.client()
    first = http.post("/api/ask", json={"message": CITY_QUESTION}).json()
    live_server.model.queue(CITY_TOP.replace("LIMIT 10", "LIMIT 3"))
    second = http.post("/api/ask", json={"message": "只要前3", "conversation_id": first["conversation_id"]}).json()
    assert second["conversation_id"] == first["conversation_id"] and second["row_count"] == 3
    prompt = "\n".join(str(m.content) for m in live_server.model.calls[-1])
    assert CITY_QUESTION in prompt  # the earlier turn reached the model
    assert len(http.get(f"/api/conversations/{first['conversation_id']}").json()["messages"]) == 4


def test_conversations_create_list_rename_delete(live_server):
    http = live_server.client()
    made = http.post("/api/conversations", json={"title": "  Weekly   GMV  "})
    assert made.status_code == 201 and made.json()["title"] == "Weekly GMV" and made.json()["datasource"] == "demo"
    asked = http.post("/api/ask", json={"message": CITY_QUESTION}).json()
    items = http.get("/api/conversations").json()["items"]
    assert [c["id"] for c in items] == [asked["conversation_id"], made.json()["id"]]  # newest first
    assert items[0]["title"] == asked["answer"][:50]  # titled from the first answer
    renamed = http.patch(f"/api/conversations/{asked['conversation_id']}", json={"title": "城市排行"})
    assert renamed.status_code == 200 and renamed.json()["title"] == "城市排行"
    assert http.delete(f"/api/conversations/{asked['conversation_id']}").json() == {"deleted": True}
    assert [c["id"] for c in http.get("/api/conversations").json()["items"]] == [made.json()["id"]]
    gone = http.get(f"/api/conversations/{asked['conversation_id']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "conversation_not_found"


def test_feedback_on_the_latest_answer(live_server):
    http = live_server.client()
    asked = http.post("/api/ask", json={"message": CITY_QUESTION}).json()
    url = f"/api/conversations/{asked['conversation_id']}/feedback"
    down = http.post(url, json={"verdict": "down"})
    assert down.status_code == 200 and down.json() == {"conversation_id": asked["conversation_id"], "verdict": "down",
                                                       "rejected_examples": []}
    bad = http.post(url, json={"verdict": "meh"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_feedback"
    missing = http.post("/api/conversations/nope/feedback", json={"verdict": "up"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "conversation_not_found"


def test_datasources_list_and_add_with_a_connection_test(live_server, home, tmp_path):
    http = live_server.client()
    items = http.get("/api/datasources").json()["items"]
    assert [d["name"] for d in items] == ["demo"] and items[0]["dialect"] == "sqlite"
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(home / "data" / "demo.sqlite") as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    added = http.post("/api/datasources", json={"name": "shop", "url": str(copy)})
    assert added.status_code == 201 and added.json()["tables"] >= 5 and added.json()["synced_at"]
    missing = http.post("/api/datasources", json={"name": "ghost", "url": str(tmp_path / "nope.sqlite")})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "datasource_unreachable"
    assert sorted(d["name"] for d in http.get("/api/datasources").json()["items"]) == ["demo", "shop"]
    synced = http.post("/api/datasources/shop/sync")
    assert synced.status_code == 200 and synced.json()["tables"] == added.json()["tables"]
    assert http.delete("/api/datasources/shop").json() == {"deleted": True}
    assert http.post("/api/datasources/shop/sync").status_code == 404


def test_audit_filters(live_server):
    http = live_server.client()
    http.post("/api/ask", json={"message": CITY_QUESTION})
    http.post("/api/ask", json={"message": "你好"})
    rows = http.get("/api/audit").json()["items"]
    assert len(rows) == 2 and {r["user_id"] for r in rows} == {"local"}
    assert rows[0]["question"] == "你好"  # newest first
    assert http.get("/api/audit", params={"limit": 1}).json()["items"][0]["question"] == "你好"
    assert http.get("/api/audit", params={"datasource": "nope"}).json()["items"] == []
    assert len(http.get("/api/audit", params={"since": "2000-01-01T00:00:00Z", "status": "ok"}).json()["items"]) == 2
    assert http.get("/api/audit", params={"user": "someone-else"}).json()["items"] == []
    bad = http.get("/api/audit", params={"since": "yesterday-ish"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "input_invalid"


def test_meta_health_metrics_and_openapi(live_server):
    http = live_server.client()
    meta = http.get("/api/meta").json()
    assert meta["user"] == "local" and meta["auth_required"] is False
    assert meta["datasources"] == ["demo"] and meta["default_datasource"] == "demo"
    assert meta["languages"] == ["zh", "en"] and meta["version"]
    assert http.get("/healthz").json() == {"status": "ok"}
    http.post("/api/ask", json={"message": CITY_QUESTION})
    http.post("/api/ask", json={"message": CITY_QUESTION})  # the same SQL again: a cache hit
    text = http.get("/metrics").text
    assert 'wenshu_http_requests_total{method="POST",route="/api/ask",status="200"} 2' in text
    assert 'wenshu_http_request_seconds_bucket{route="/api/ask",le="+Inf"} 2' in text
    assert "wenshu_model_calls_total 2" in text and "wenshu_cache_hits_total 1" in text
    assert 'wenshu_answers_total{status="done"} 2' in text and "wenshu_running_answers 0" in text
    ops = {op["operationId"] for path in http.get("/openapi.json").json()["paths"].values() for op in path.values()}
    assert {"ask", "conversations_list", "conversation_messages_stream", "conversation_stop", "tasks_create",
            "tasks_get", "tasks_cancel", "datasources_list", "audit_list", "meta", "health"} <= ops
    assert "swagger" in http.get("/docs").text.lower()


def test_web_root_serves_the_ui_or_says_it_is_not_built(live_server):
    from wenshu.server.routes.web import STATIC_DIR

    http = live_server.client()
    page = http.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    if (STATIC_DIR / "index.html").is_file():
        assert page.text == (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    else:
        assert "not built" in page.text and "/docs" in page.text
    missing = http.get("/static/no-such-asset.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_examples_and_glossary_wrappers(live_server):
    http = live_server.client()
    added = http.post("/api/examples", json={"question": "订单总数", "sql": "SELECT COUNT(*) AS n FROM orders"})
    assert added.status_code == 201
    ex_id = added.json()["id"]
    assert any(e["id"] == ex_id for e in http.get("/api/examples", params={"datasource": "demo"}).json()["items"])
    dup = http.post("/api/examples", json={"question": "订单总数", "sql": "SELECT 1"})
    assert dup.status_code == 400 and dup.json()["error"]["code"] == "duplicate"
    bad = http.post("/api/examples", json={"question": "坏的", "sql": "SELEC FROM WHERE ((("})
    assert bad.status_code == 400
    assert http.delete(f"/api/examples/{ex_id}").json() == {"deleted": True}
    assert http.delete(f"/api/examples/{ex_id}").status_code == 404

    term = http.post("/api/glossary", json={"term": "大促", "definition": "双11和618期间", "synonyms": ["促销季"]})
    assert term.status_code == 201 and term.json()["synonyms"] == ["促销季"]
    assert any(t["term"] == "大促" for t in http.get("/api/glossary").json()["items"])
    assert http.delete("/api/glossary/大促").json() == {"deleted": True}
    assert http.delete("/api/glossary/大促").json()["error"]["code"] == "glossary_term_not_found"


def test_answer_workers_default_to_the_cpus_for_a_local_model_one_for_the_embedded_and_32_for_a_remote_api(live_server):
    import os

    from wenshu.server.app import answer_workers
    from wenshu.settings import Settings

    assert live_server.state.runner.workers == max(2, os.cpu_count() or 1)  # the fake model answers locally
    assert answer_workers(Settings(llm_provider="openai", llm_base_url="http://127.0.0.1:1/v1")) == 32
    assert answer_workers(Settings(llm_provider="openai", server_workers=5)) == 5  # configured: as it is
    # the embedded model answers one question at a time: the others wait in the visible queue
    assert answer_workers(Settings(llm_provider="embedded")) == 1
