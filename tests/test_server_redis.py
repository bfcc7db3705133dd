"""Servers sharing one Redis (WENSHU_REDIS_URL) over HTTP, with the scripted fake model: two app instances with
separate homes and app stores share the result cache and the rate limit; a server answers through a Redis
outage, says so in /healthz and /metrics, and uses Redis again once it is back; `wenshu serve` refuses a
Redis it cannot use and `wenshu doctor` reports it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from fixtures_server import CITY_QUESTION
from fixtures_servers import free_port
from wenshu.cli.app import app
from wenshu.settings import reset_settings_cache

WENSHU = str(Path(sys.executable).parent / "wenshu")


def _ask(http) -> dict:
    resp = http.post("/api/ask", json={"message": CITY_QUESTION})
    assert resp.status_code == 200, resp.text
    return resp.json()


def _second_home(home, tmp_path):
    """Another WENSHU_HOME with the same demo file (same mtime and size: the same data version)."""
    other = tmp_path / "home2"
    (other / "data").mkdir(parents=True)
    shutil.copy2(home / "data" / "demo.sqlite", other / "data" / "demo.sqlite")
    return other


def test_two_servers_share_the_result_cache_and_the_rate_limit(server_factory, home, tmp_path, redis_url):
    a = server_factory(redis_url=redis_url, rate_limit_per_minute=4)
    b = server_factory(redis_url=redis_url, rate_limit_per_minute=4, home=_second_home(home, tmp_path))
    first = _ask(a.client())
    assert first["error"] is None and first["rows"] and first["cached"] is False
    second = _ask(b.client())
    assert second["cached"] is True and second["rows"] == first["rows"]
    for live in (a, b):  # neither app store holds the entry: it is in Redis
        with live.state.store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM result_cache").scalar() == 0

    # 4 a minute for this client across both servers: two asks spent, two left, then 429 on either.
    assert [b.client().get("/api/meta").status_code, a.client().get("/api/meta").status_code] == [200, 200]
    limited = b.client().get("/api/meta")
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 15
    assert a.client().get("/api/conversations").status_code == 429


def test_a_server_answers_through_a_redis_outage_and_recovers(server_factory, redis_factory):
    redis = redis_factory()
    live = server_factory(redis_url=redis.url, rate_limit_per_minute=100)
    http = live.client()
    assert http.get("/healthz").json() == {"status": "ok", "redis": "ok"}
    assert _ask(http)["cached"] is False and _ask(http)["cached"] is True

    redis.stop()
    health = http.get("/healthz", params={"lang": "zh"}).json()
    assert health["status"] == "ok" and health["redis"] == "down"
    assert health["warnings"][0]["code"] == "redis_unreachable" and "Redis 无法连接" in health["warnings"][0]["message"]
    during = _ask(http)
    assert during["error"] is None and during["rows"] and during["cached"] is False  # no shared cache, no failure
    assert "wenshu_redis_up 0" in http.get("/metrics").text
    assert [http.get("/api/meta").status_code for _ in range(3)] == [200] * 3  # this process's own limit

    redis.start()
    assert http.get("/healthz").json()["redis"] == "ok"
    assert _ask(http)["cached"] is False and _ask(http)["cached"] is True  # the (empty) restarted Redis, used again
    assert "wenshu_redis_up 1" in http.get("/metrics").text


def test_serve_refuses_a_redis_it_cannot_use(home):
    for url, code, words in [("http://127.0.0.1:6379/0", "redis_bad_url", "is not a Redis URL"),
                             (f"redis://127.0.0.1:{free_port()}/0", "redis_unreachable", "Cannot reach Redis")]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WENSHU_")}
        env |= {"WENSHU_HOME": str(home), "WENSHU_LLM_PROVIDER": "fake", "WENSHU_REDIS_URL": url, "LANG": "en_US.UTF-8"}
        out = subprocess.run([WENSHU, "serve", "--port", str(free_port())], capture_output=True, text=True,
                             timeout=60, env=env)
        assert out.returncode != 0 and code in out.stderr and words in out.stderr, out.stderr


def test_doctor_reports_the_shared_redis(home, redis_url, monkeypatch):
    monkeypatch.setenv("WENSHU_REDIS_URL", redis_url)
    reset_settings_cache()
    ok = CliRunner().invoke(app, ["doctor"])
    assert ok.exit_code == 0 and "Redis / 共享缓存与限流: ok (Redis " in ok.stdout
    monkeypatch.setenv("WENSHU_REDIS_URL", f"redis://:pw@127.0.0.1:{free_port()}/0")
    reset_settings_cache()
    down = CliRunner().invoke(app, ["doctor"])
    assert down.exit_code == 0 and "unusable" in down.stdout and "redis_unreachable" in down.stdout
    assert ":pw@" not in down.stdout
    reset_settings_cache()


def test_without_a_redis_url_nothing_changes(live_server):
    http = live_server.client()
    assert http.get("/healthz").json() == {"status": "ok"}
    assert "wenshu_redis_up" not in http.get("/metrics").text
    assert _ask(http)["cached"] is False and _ask(http)["cached"] is True  # the app store's own cache
    with live_server.state.store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM result_cache")).scalar() == 1
