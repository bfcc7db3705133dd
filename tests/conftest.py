"""Shared fixtures: a temporary WENSHU_HOME per test, the demo DB built once, a scripted fake model."""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import pytest

from wenshu.settings import DEFAULT_MODEL_FILE, Settings, reset_settings_cache

pytest_plugins = ["fixtures_servers", "fixtures_pg_cluster", "fixtures_redis", "fixtures_server", "fixtures_queue",
                  "fixtures_duckdb", "fixtures_clickhouse", "fixtures_spark", "fixtures_kb"]  # real PostgreSQL /
# MariaDB (pg_server, mariadb_server; pg_cluster, one a test module may stop) and Redis (redis_url); a live
# Wenshu HTTP server (live_server); a team deployment with worker processes (team)

for _var in [k for k in os.environ if k.startswith("WENSHU_") and k not in (
        "WENSHU_TEST_MODEL_PATH", "WENSHU_REQUIRE_MODEL", "WENSHU_REQUIRE_SERVERS", "WENSHU_UPDATE_SCREENSHOT",
        "WENSHU_SPIDER_DIR", "WENSHU_BENCH_DIR", "WENSHU_REQUIRE_BENCH_DATA")]:
    os.environ.pop(_var)


@pytest.fixture(scope="session")
def demo_db_file(tmp_path_factory) -> Path:
    from wenshu.demo.generate import build_demo_db

    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    return build_demo_db(path, end_date=date.today())


@pytest.fixture(scope="session", autouse=True)
def free_sql_by_default():
    """The product answers business questions through the semantic plan path first (settings.semantic_path).
    Tests script the fake model's answers for the free-SQL path, so they run with it off; the plan path's
    own tests (test_semantic_path.py, the real-model end-to-end test) turn it on explicitly."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WENSHU_SEMANTIC_PATH", "0")
        yield


@pytest.fixture(scope="session", autouse=True)
def no_answer_cache_by_default():
    """The product answers a repeated first question from the answer cache (settings.answer_cache_ttl_s). Tests
    ask the same question again to see the graph run again, so they run with it off; its own tests
    (test_answer_cache.py) turn it on explicitly."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WENSHU_ANSWER_CACHE_TTL_S", "0")
        yield


@pytest.fixture(scope="session", autouse=True)
def no_plain_reading_by_default():
    """The product asks a plain prompt once when the first SQL cannot answer (check `plain_reading`). Tests
    script the fake model's answers call by call, retries included, so they run with it off (the other
    defaults kept); its own tests (test_plain_reading.py) turn it on explicitly."""
    import json

    from wenshu.settings import OFF_BY_DEFAULT

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WENSHU_DISABLED_CHECKS", json.dumps([*OFF_BY_DEFAULT, "plain_reading"]))
        yield


@pytest.fixture
def home(tmp_path, monkeypatch, demo_db_file) -> Path:
    """A fresh WENSHU_HOME with the demo DB already in place (copied, so tests cannot share state)."""
    from wenshu.demo.generate import ensure_demo_db

    ensure_demo_db(demo_db_file.parent)  # rebuilt in place if the run crossed midnight: the agent's copy would be
    home = tmp_path / "home"  # rebuilt for the new day while the tests' own reads of demo_db_file stayed on the old one
    (home / "data").mkdir(parents=True)
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    monkeypatch.setenv("WENSHU_HOME", str(home))
    reset_settings_cache()
    yield home
    reset_settings_cache()


@pytest.fixture
def settings(home) -> Settings:
    return Settings()


@pytest.fixture
def store(settings):
    from wenshu.bootstrap import ensure_demo, open_store

    s = open_store(settings)
    ensure_demo(settings, s)
    yield s
    s.close()


@pytest.fixture
def fake_model():
    from wenshu.providers.fake import ScriptedChatModel

    return ScriptedChatModel()


@pytest.fixture
def agent(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    return Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


@pytest.fixture
def plan_agent(store, fake_model, home):
    """The agent with the plan path on, over the demo database and its semantic model, on the scripted model."""
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    return Agent(Settings(semantic_path=True), store,
                 models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


@pytest.fixture
def agent_all_checks(settings, store, fake_model):
    """The agent with every accuracy check on, also those off by default, to test their mechanism; but the
    plain readings, whose extra model call the scripts do not hold (test_plain_reading.py tests them)."""
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    return Agent(settings.model_copy(update={"disabled_checks": ["plain_reading", "plain_preferred"]}), store,
                 models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


@pytest.fixture(scope="session")
def real_model_path() -> Path:
    """The installed embedded model (make test installs it); skipped only outside `make test`/CI."""
    path = Path(os.environ.get("WENSHU_TEST_MODEL_PATH") or Path.home() / ".wenshu" / "models" / DEFAULT_MODEL_FILE)
    if not path.exists():
        msg = f"the embedded model is not installed at {path}; run `make test` (it runs `wenshu model install`)"
        if os.environ.get("WENSHU_REQUIRE_MODEL") or os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path
