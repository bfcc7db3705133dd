"""Which adapter and which secret serve `/channels/webhook/{name}`, from the settings.

Adapters are registered by kind: the built-ins here, plugins through the `wenshu.channels` entry point
group (`wenshu.plugins`). A channel is configured in wenshu.toml (`[webhook_channels.NAME] kind, secret, datasource, push_url`) or, for
the built-in names `wecom` and `feishu`, by the shared `WENSHU_WEBHOOK_SECRET` alone. A channel
without a secret accepts nothing: an unsigned robot endpoint would be open to anyone.
"""

from __future__ import annotations

from wenshu.channels.base import Channel, HmacSignature
from wenshu.channels.feishu import FeishuChannel
from wenshu.channels.wecom import WeComChannel
from wenshu.errors import NotFound, WebhookNotConfigured
from wenshu.plugins import load_into
from wenshu.settings import Settings

ADAPTERS: dict[str, type[Channel]] = {"wecom": WeComChannel, "feishu": FeishuChannel}


def register_adapter(kind: str, adapter: type[Channel]) -> None:
    ADAPTERS[kind] = adapter


def unknown_channel(name: str) -> NotFound:
    return NotFound(f"There is no webhook channel named '{name}'.", f"没有名为「{name}」的 Webhook 渠道。",
                    code="unknown_channel")


def build_channel(name: str, settings: Settings) -> Channel:
    """The configured channel, or NotFound / WebhookNotConfigured."""
    load_into(ADAPTERS, "channels")
    config = settings.webhook_channels.get(name)
    if config is None and name not in ADAPTERS:
        raise unknown_channel(name)
    config = config or {}
    adapter = ADAPTERS.get(config.get("kind") or name)
    if adapter is None:
        raise unknown_channel(name)
    secret = config.get("secret") or settings.webhook_secret
    if not secret:
        raise WebhookNotConfigured()
    window = int(config.get("window_s") or settings.webhook_window_s)
    return adapter(name, HmacSignature(secret, window), datasource=config.get("datasource"),
                   push_url=config.get("push_url") or None)
