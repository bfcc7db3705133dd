"""Plugins register the way the built-ins do, through entry points: a package installed next to Wenshu
(here a real distribution, `wenshu-echo`, with its dist-info on the path) adds a model provider, a
chat channel and a SQL engine that settings and URLs then name by string; a broken one is named in a
clear error; an unknown name lists the installed ones."""

from __future__ import annotations

import json
import textwrap
from importlib.metadata import entry_points

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.settings import Settings, reset_settings_cache

PLUGIN = '''
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from wenshu.channels.wecom import WeComChannel
from wenshu.engines.adapter import EngineAdapter, PlanEstimate
from wenshu.engines.sqlite import SQLiteAdapter
from wenshu.storage.vectors import MemoryVectorIndex
from wenshu.providers.fake import ScriptedChatModel


def factory(settings):
    model = ScriptedChatModel()
    model.default = "SELECT COUNT(*) AS regions FROM regions"
    return {"fast": model, "strong": model}


class EchoRobot(WeComChannel):
    """A chat robot adapter from outside Wenshu."""


class EchoDialect(SQLiteDialect_pysqlite):
    """SQLite files under another URL scheme: `echodb:///path.db`."""

    name = "echodb"
    supports_statement_cache = True


class EchoEngine(EngineAdapter):
    """An engine adapter from outside Wenshu: SQLite through SQLAlchemy, its plan estimate counted here."""

    name = "echodb"
    label = "EchoDB"
    backends = ("echodb",)
    dialect = "sqlite"
    denied_functions = SQLiteAdapter.denied_functions
    buckets = SQLiteAdapter.buckets
    estimates: list = []

    def estimate(self, url, sql, timeout_s):
        self.estimates.append(sql)
        return PlanEstimate(rows=1.0)

    def bounded_scalar(self, conn, query, seconds):
        return SQLiteAdapter().bounded_scalar(conn, query, seconds)


def memory_index(engine):
    """A vector index from outside Wenshu: vectors in process memory."""
    return MemoryVectorIndex()
'''
ENTRY_POINTS = """
[wenshu.providers]
echo = wenshu_echo:factory

[wenshu.channels]
echorobot = wenshu_echo:EchoRobot

[wenshu.embedders]
broken = wenshu_echo_missing:factory

[wenshu.engines]
echodb = wenshu_echo:EchoEngine
brokendb = wenshu_echo_missing:Adapter

[sqlalchemy.dialects]
echodb = wenshu_echo:EchoDialect

[wenshu.vector_indexes]
echoindex = wenshu_echo:memory_index
"""


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """`wenshu-echo` installed into a directory on sys.path, the way pip lays out a package."""
    site = tmp_path / "site"
    (site / "wenshu_echo").mkdir(parents=True)
    (site / "wenshu_echo" / "__init__.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    dist = site / "wenshu_echo-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: wenshu-echo\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    from wenshu.channels import registry as channels
    from wenshu.engines import registry as engines
    from wenshu.providers import embeddings, registry
    from wenshu.storage import vectors

    for module, name in ((registry, "PROVIDERS"), (embeddings, "EMBEDDERS"), (channels, "ADAPTERS"),
                         (engines, "_classes"), (engines, "_instances"), (engines, "_broken"),
                         (vectors, "VECTOR_INDEXES")):
        monkeypatch.setattr(module, name, dict(getattr(module, name)))  # what the plugin adds goes with the test
    return site


def test_the_built_ins_are_declared_as_entry_points_too():
    assert {"embedded", "openai", "fake"} <= {e.name for e in entry_points(group="wenshu.providers")}
    assert {"wecom", "feishu"} <= {e.name for e in entry_points(group="wenshu.channels")}
    assert {"embedded", "openai"} <= {e.name for e in entry_points(group="wenshu.embedders")}
    assert {"sqlite", "postgresql", "mysql", "duckdb", "clickhouse", "spark"} <= {
        e.name for e in entry_points(group="wenshu.engines")}
    assert {"auto", "exact"} <= {e.name for e in entry_points(group="wenshu.vector_indexes")}


def test_an_installed_engine_adapter_serves_its_urls_through_sync_guard_and_run(installed, home, tmp_path):
    import shutil

    db = tmp_path / "echo.db"
    shutil.copy(home / "data" / "demo.sqlite", db)
    runner = CliRunner()
    out = runner.invoke(app, ["db", "add", "echo", f"echodb:///{db}"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["sql", "run", "SELECT COUNT(*) AS regions FROM regions", "--db", "echo", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["rows"] == [[7]]
    from wenshu_echo import EchoEngine

    assert any("regions" in sql for sql in EchoEngine.estimates)  # the guard asked the plugin for its plan
    out = runner.invoke(app, ["sql", "run", "SELECT load_extension('x')", "--db", "echo", "--json"])
    assert out.exit_code != 0 and "sql_forbidden_function" in out.output


def test_an_engine_without_an_adapter_lists_the_installed_ones_and_a_broken_one_is_named(installed):
    from wenshu.engines.registry import UnknownEngine, adapter_for_url, require
    from wenshu.plugins import PluginBroken

    with pytest.raises(UnknownEngine) as err:
        adapter_for_url("oracle://u:p@host/db")
    assert "echodb" in err.value.message() and "duckdb" in err.value.message()
    assert "brokendb" not in err.value.message()  # a plugin that cannot load is left out, the others work
    with pytest.raises(PluginBroken) as broken:
        require("brokendb")
    assert "wenshu-echo" in broken.value.message()


def test_an_installed_vector_index_is_named_by_the_setting(installed, store, monkeypatch):
    from wenshu.storage.vectors import MemoryVectorIndex, UnknownVectorIndex, open_vector_index

    monkeypatch.setenv("WENSHU_VECTOR_INDEX", "echoindex")
    index = open_vector_index(store.engine, Settings().vector_index)
    assert type(index).__name__ == MemoryVectorIndex.__name__ and index.kind == "memory"

    with pytest.raises(UnknownVectorIndex) as err:
        open_vector_index(None, "faiss")
    assert "echoindex" in err.value.message() and "auto" in err.value.message()


def test_an_installed_plugin_provider_answers_wenshu_ask(installed, home, monkeypatch):
    monkeypatch.setenv("WENSHU_LLM_PROVIDER", "echo")
    reset_settings_cache()
    out = CliRunner().invoke(app, ["ask", "一共有几个大区？", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rows"] == [[7]] and data["sql"].startswith("SELECT COUNT(*) AS regions FROM regions")


def test_an_unknown_provider_lists_the_installed_ones_and_a_broken_plugin_is_named(installed):
    from wenshu.errors import ModelMissing
    from wenshu.plugins import PluginBroken
    from wenshu.providers.embeddings import get_embedder
    from wenshu.providers.registry import resolve

    with pytest.raises(ModelMissing) as unknown:
        resolve(Settings(llm_provider="nosuch"))
    assert "nosuch" in unknown.value.en and "echo" in unknown.value.en and "embedded" in unknown.value.en
    with pytest.raises(PluginBroken) as broken:
        get_embedder(Settings(embed_provider="broken"))
    assert "'broken'" in broken.value.en and "wenshu-echo" in broken.value.en and broken.value.code == "plugin_broken"


def test_a_plugin_channel_serves_a_configured_webhook(installed):
    from wenshu.channels.registry import build_channel

    channel = build_channel("ops", Settings(webhook_channels={"ops": {"kind": "echorobot", "secret": "s3cret"}}))
    assert type(channel).__name__ == "EchoRobot" and type(channel).__module__ == "wenshu_echo"
