"""Plugins register the way the built-ins do, through entry points: a package installed next to Wenshu
(here a real distribution, `wenshu-echo`, with its dist-info on the path) adds a model provider and a
chat channel that settings then name by string; a broken one is named in a clear error; an unknown
name lists the installed ones."""

from __future__ import annotations

import json
import textwrap
from importlib.metadata import entry_points

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.settings import Settings, reset_settings_cache

PLUGIN = '''
from wenshu.channels.wecom import WeComChannel
from wenshu.providers.fake import ScriptedChatModel


def factory(settings):
    model = ScriptedChatModel()
    model.default = "SELECT COUNT(*) AS regions FROM regions"
    return {"fast": model, "strong": model}


class EchoRobot(WeComChannel):
    """A chat robot adapter from outside Wenshu."""
'''
ENTRY_POINTS = """
[wenshu.providers]
echo = wenshu_echo:factory

[wenshu.channels]
echorobot = wenshu_echo:EchoRobot

[wenshu.embedders]
broken = wenshu_echo_missing:factory
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
    from wenshu.providers import embeddings, registry

    for module, name in ((registry, "PROVIDERS"), (embeddings, "EMBEDDERS"), (channels, "ADAPTERS")):
        monkeypatch.setattr(module, name, dict(getattr(module, name)))  # what the plugin adds goes with the test
    return site


def test_the_built_ins_are_declared_as_entry_points_too():
    assert {"embedded", "openai", "fake"} <= {e.name for e in entry_points(group="wenshu.providers")}
    assert {"wecom", "feishu"} <= {e.name for e in entry_points(group="wenshu.channels")}
    assert {"embedded", "openai"} <= {e.name for e in entry_points(group="wenshu.embedders")}


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
