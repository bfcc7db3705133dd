"""`make run-team` (scripts/run-team.sh) against the real Debian binaries: `up` creates and starts PostgreSQL and
Redis under WENSHU_HOME/team and migrates the app store; `serve` reuses both and serves with their URLs (a
health check over HTTP says Redis is used, the API reads the PostgreSQL store); `down` stops both."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from fixtures_servers import _pg_bin, free_port, missing

SCRIPT = str(Path(__file__).resolve().parents[1] / "scripts" / "run-team.sh")
WENSHU = str(Path(sys.executable).parent / "wenshu")


@pytest.fixture
def team_home(demo_db_file):
    """A WENSHU_HOME the postgres system user can reach (the tests run as root in CI), the demo DB in place."""
    if _pg_bin() is None or shutil.which("redis-server") is None:
        missing("PostgreSQL or redis-server is not installed (make system-deps)")
    home = Path(tempfile.mkdtemp(prefix="wenshu-team-", dir="/tmp"))
    home.chmod(0o755)
    (home / "data").mkdir()
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WENSHU_", "TEAM_"))}
    env |= {"WENSHU_HOME": str(home), "WENSHU": WENSHU, "WENSHU_LLM_PROVIDER": "fake", "LANG": "en_US.UTF-8",
            "TEAM_PORT": str(free_port())}
    yield home, env
    subprocess.run(["bash", SCRIPT, "down"], env=env, capture_output=True, timeout=60)
    shutil.rmtree(home, ignore_errors=True)


def _run(env: dict, *args: str) -> str:
    out = subprocess.run(["bash", SCRIPT, *args], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_run_team_starts_migrates_serves_and_stops(team_home):
    home, env = team_home
    up = _run(env, "up")
    assert "PostgreSQL started" in up and "Redis started" in up and "schema at revision" in up, up
    urls = dict(re.findall(r"export (WENSHU_\w+)=(\S+)", _run(env, "env")))
    db_url, redis_url = urls["WENSHU_DATABASE_URL"], urls["WENSHU_REDIS_URL"]
    assert db_url.startswith("postgresql://wenshu:") and redis_url.startswith("redis://:")
    assert oct((home / "team" / "team.env").stat().st_mode)[-3:] == "600"  # the generated password
    with psycopg.connect(db_url) as conn:  # migrated
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone()[0] == 1

    server = subprocess.Popen(["bash", SCRIPT, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, start_new_session=True)
    base = f"http://127.0.0.1:{env['TEAM_PORT']}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                health = httpx.get(f"{base}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stdout.read()
                time.sleep(0.2)
        assert health.json() == {"status": "ok", "redis": "ok", "store": "ok"}
        items = httpx.get(f"{base}/api/datasources", timeout=10).json()["items"]  # from the PostgreSQL store
        assert [d["name"] for d in items] == ["demo"]
    finally:
        os.killpg(server.pid, signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    assert "PostgreSQL is running" in output and "reused" in output and "Redis is running" in output, output

    pg_port, redis_port = int(db_url.rsplit(":", 1)[1].split("/")[0]), int(redis_url.rsplit(":", 1)[1].split("/")[0])
    down = _run(env, "down")
    assert "PostgreSQL stopped" in down and "Redis stopped" in down
    assert not _listening(pg_port) and not _listening(redis_port)


def _compose_value(value: str) -> str:
    """A docker-compose value with its `${NAME:-default}` / `${NAME:?message}` references filled in."""
    return re.sub(r"\$\{(\w+):([-?])([^}]*)\}", lambda m: m.group(3) if m.group(2) == "-" else f"x-{m.group(1)}",
                  value)


def test_docker_compose_sets_what_wenshu_reads(monkeypatch):
    """docker-compose.yml cannot run here (no Docker): at least every WENSHU_* variable it gives the server is
    one the settings read, and the URLs are ones the app store and Redis accept."""
    import yaml

    from wenshu.settings import Settings
    from wenshu.storage.store_health import store_url

    compose = yaml.safe_load((Path(SCRIPT).parents[1] / "docker-compose.yml").read_text())
    env = {k: _compose_value(str(v)) for k, v in compose["services"]["wenshu"]["environment"].items()}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    read = {"WENSHU_DATABASE_URL": settings.app_db_url, "WENSHU_REDIS_URL": settings.redis_url,
            "WENSHU_LLM_BASE_URL": settings.llm_base_url, "WENSHU_LLM_MODEL": settings.llm_model,
            "WENSHU_LLM_API_KEY": settings.llm_api_key or "", "WENSHU_LLM_MAX_RETRIES": str(settings.llm_max_retries),
            "WENSHU_LLM_TIMEOUT_S": f"{settings.llm_timeout_s:g}"}
    assert env == read
    assert store_url(settings.app_db_url).drivername == "postgresql+psycopg"
    assert settings.app_db_url.endswith("@postgres:5432/wenshu") and settings.redis_url == "redis://redis:6379/0"
    worker = compose["services"]["worker"]  # the workers: the same settings, the same home, `wenshu worker`
    assert worker["environment"] == compose["services"]["wenshu"]["environment"]
    assert worker["command"] == ["wenshu", "worker"] and worker["volumes"] == compose["services"]["wenshu"]["volumes"]
