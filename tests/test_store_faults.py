"""The PostgreSQL app store as a service that fails, on a real PostgreSQL of this module's own (`pg_cluster`): a
wrong WENSHU_DATABASE_URL is refused at start with one sentence and a code each; the database stopped while a
server answers gives 503 `store_unavailable` (English and Chinese, no hang), answers work again once it is back
without restarting Wenshu, and every message the API acknowledged is in the store afterwards."""

from __future__ import annotations

import threading
import time

import pytest
from typer.testing import CliRunner

from fixtures_server import CITY_QUESTION
from fixtures_servers import free_port
from wenshu.bootstrap import open_store
from wenshu.cli.app import app
from wenshu.settings import Settings, reset_settings_cache
from wenshu.storage.errors import StoreUnusable

ANSWER_BOUND_S = 15  # a request while the database is down fails within this (the pool waits 2 s at most)


def test_a_wrong_database_url_is_refused_with_its_reason(home, pg_cluster, monkeypatch):
    cases = [("mysql://wenshu@db.internal/wenshu", "database_bad_url", "is not a database URL Wenshu can use"),
             ("not a url", "database_bad_url", "postgresql://user:password@host:5432/wenshu"),
             (f"postgresql://postgres@127.0.0.1:{free_port()}/wenshu", "database_unreachable", "Connection refused"),
             (pg_cluster.url(password="wrong-pw"), "database_auth_failed", "refused the user or password"),
             (pg_cluster.url("no_such_db"), "database_missing", "does not exist")]
    for url, code, words in cases:
        with pytest.raises(StoreUnusable) as refused:
            open_store(Settings(app_db_url=url, database_timeout_s=2))
        err = refused.value
        assert err.code == code and words in err.message("en"), (url, err.code, err.message("en"))
        assert "WENSHU_DATABASE_URL" in err.message("zh") or "应用数据库" in err.message("zh")
        assert "wrong-pw" not in err.message("en") + err.message("zh")

    monkeypatch.setenv("WENSHU_DATABASE_URL", pg_cluster.url(password="wrong-pw"))
    monkeypatch.setenv("WENSHU_LLM_PROVIDER", "fake")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    reset_settings_cache()
    serve = CliRunner().invoke(app, ["serve", "--port", str(free_port())])  # refuses to start
    assert serve.exit_code == 1 and "database_auth_failed" in serve.output and "拒绝了" in serve.output, serve.output
    assert "Traceback" not in serve.output and "wrong-pw" not in serve.output
    doctor = CliRunner().invoke(app, ["doctor"])  # reports it, and goes on with the rest
    assert doctor.exit_code == 0 and "App store / 应用数据库: unusable" in doctor.stdout, doctor.stdout
    assert "database_auth_failed" in doctor.stdout and "wrong-pw" not in doctor.stdout
    reset_settings_cache()


class Asker(threading.Thread):
    """Asks in one conversation, one question at a time, until told to stop (or 200 questions): every reply's
    status, error code, message and time, and the answers the API acknowledged."""

    def __init__(self, http, cid: str):
        super().__init__(daemon=True)
        self.http, self.cid = http, cid
        self.replies: list[tuple[int, str | None, str, float]] = []
        self.acked: list[int] = []  # message ids of the answers acknowledged with 2xx
        self.stopping = threading.Event()

    def run(self) -> None:
        for i in range(200):
            if self.stopping.is_set():
                return
            lang = "zh" if i % 2 else "en"
            started = time.monotonic()
            resp = self.http.post("/api/ask", params={"lang": lang},
                                  json={"message": CITY_QUESTION, "conversation_id": self.cid})
            error = resp.json().get("error") or {}
            self.replies.append((resp.status_code, error.get("code"), error.get("message", ""),
                                 time.monotonic() - started))
            if resp.is_success:
                self.acked.append(resp.json()["message_id"])
            time.sleep(0.05)

    def acked_since(self, count: int) -> int:
        return len(self.acked) - count


def _wait(condition, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_postgres_down_while_answering_then_back(server_factory, pg_cluster):
    live = server_factory(app_db_url=pg_cluster.create_database("wenshu_faults"), database_timeout_s=2)
    http = live.client(timeout=60)
    first = http.post("/api/ask", json={"message": CITY_QUESTION})
    assert first.status_code == 200 and first.json()["error"] is None, first.text
    asker = Asker(http, first.json()["conversation_id"])
    asker.start()
    try:
        _wait(lambda: len(asker.acked) >= 2)
        pg_cluster.stop()  # in the middle: the asker keeps asking
        down_at = len(asker.replies)
        _wait(lambda: sum(code == 503 for code, *_ in asker.replies[down_at:]) >= 2)
        health = live.client(timeout=30).get("/healthz", params={"lang": "zh"}).json()  # live, and says why
        assert health["status"] == "ok" and health["store"] == "down", health
        assert [w["code"] for w in health["warnings"]] == ["store_unavailable"]
        assert "应用数据库暂时无法响应" in health["warnings"][0]["message"]
        acked_before = len(asker.acked)
        pg_cluster.start()
        _wait(lambda: asker.acked_since(acked_before) >= 2)  # answers again, the same Wenshu
        assert live.client(timeout=30).get("/healthz").json() == {"status": "ok", "store": "ok"}
    finally:
        asker.stopping.set()
        asker.join(timeout=60)

    for status, code, message, seconds in asker.replies:
        assert seconds < ANSWER_BOUND_S  # never a hang
        assert status == 200 or (status == 503 and code == "store_unavailable"), (status, code, message)
        if status == 503:
            assert "not saved" in message or "本次请求未保存" in message
    assert {m for s, _, m, _ in asker.replies if s == 503} >= {
        "The app store's database is not answering right now, so this request was not saved; try again in a "
        "moment (Wenshu reconnects by itself when the database is back).",
        "应用数据库暂时无法响应，本次请求未保存；请稍后重试（数据库恢复后问数会自动重新连接）。"}

    detail = http.get(f"/api/conversations/{asker.cid}").json()  # after recovery: nothing acknowledged is lost
    stored = {m["id"] for m in detail["messages"] if m["role"] == "assistant"}
    assert set(asker.acked) | {first.json()["message_id"]} <= stored
    assert len(asker.acked) >= 4
