"""Model providers, registered by name: the built-ins here, plugins through the `wenshu.providers` entry
point group (`wenshu.plugins`; the built-ins are declared there too).

`resolve(settings)` picks the provider: an explicit `WENSHU_LLM_PROVIDER`, else `openai` when an
endpoint is configured, else `embedded` when the model file is installed. With none available it raises
`ModelMissing` with the exact fix. A provider whose strong model has native tool calling (`bind_tools`:
ChatOpenAI does) gets the assistant's steps as tool calls (`WENSHU_LLM_NATIVE_TOOLS`, on by default).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from langchain_core.language_models.chat_models import BaseChatModel

from wenshu.errors import ModelMissing
from wenshu.plugins import load_into
from wenshu.providers.base import ModelClient
from wenshu.settings import Settings

ProviderFactory = Callable[[Settings], dict[str, BaseChatModel]]
PROVIDERS: dict[str, ProviderFactory] = {}


def register(name: str) -> Callable[[ProviderFactory], ProviderFactory]:
    def deco(factory: ProviderFactory) -> ProviderFactory:
        PROVIDERS[name] = factory
        return factory

    return deco


NO_MODEL = ModelMissing(
    "No model is available: run `wenshu model install` for the embedded model, or set WENSHU_LLM_BASE_URL "
    "and WENSHU_LLM_MODEL for an OpenAI-compatible endpoint.",
    "没有可用的模型：运行 `wenshu model install` 安装内置模型，或设置 WENSHU_LLM_BASE_URL 与 WENSHU_LLM_MODEL 使用兼容 OpenAI 的服务。",
)


@register("embedded")
def _embedded(settings: Settings) -> dict[str, BaseChatModel]:
    from wenshu.providers.llamacpp import ChatLlamaCpp
    from wenshu.providers.prefix_cache import PrefixCache
    from wenshu.providers.prefix_store import PrefixStore
    from wenshu.providers.runtime import ensure_probed
    from wenshu.providers.verify import ensure_verified

    path, digest = ensure_verified(settings)
    ensure_probed(path.with_name(path.name + ".runtime.json"), path, digest, settings.model_cpu_variant)
    prefixes = None
    if settings.model_prefix_max_mb > 0:
        store = PrefixStore(settings.prefix_dir, settings.model_prefix_max_mb << 20)
        prefixes = PrefixCache(store, digest, min_tokens=settings.model_prefix_min_tokens)
    model = ChatLlamaCpp(
        model_path=path,
        n_ctx=settings.model_ctx,
        n_threads=settings.model_threads,
        max_tokens=settings.model_max_tokens,
        timeout_s=settings.llm_timeout_s,
        cpu_variant=settings.model_cpu_variant,
        prefix_cache=prefixes,
    )
    model.preload()
    return {"fast": model, "strong": model}


@register("openai")
def _openai(settings: Settings) -> dict[str, BaseChatModel]:
    from wenshu.providers.endpoint_chat import EndpointChat

    if not (settings.llm_base_url and settings.llm_model):
        raise ModelMissing(
            "The OpenAI-compatible provider needs WENSHU_LLM_BASE_URL and WENSHU_LLM_MODEL.",
            "兼容 OpenAI 的模型需要设置 WENSHU_LLM_BASE_URL 和 WENSHU_LLM_MODEL。",
        )

    def make(name: str) -> BaseChatModel:
        return EndpointChat(
            base_url=settings.llm_base_url,
            model=name,
            api_key=settings.llm_api_key or "not-needed",
            temperature=0,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,  # timeouts, 5xx, 429: with backoff (providers/endpoint_chat.py)
            stream_usage=True,
        )

    return {"fast": make(settings.fast_model_name), "strong": make(settings.strong_model_name)}


@register("fake")
def _fake(settings: Settings) -> dict[str, BaseChatModel]:
    import os

    from wenshu.providers.fake import ScriptedChatModel

    script = os.environ.get("WENSHU_FAKE_SCRIPT")
    model = ScriptedChatModel.from_file(Path(script)) if script else ScriptedChatModel()
    return {"fast": model, "strong": model}


def choose_provider(settings: Settings) -> str:
    if settings.llm_provider != "auto":
        return settings.llm_provider
    if settings.llm_base_url:
        return "openai"
    if settings.resolved_model_path.exists():
        return "embedded"
    raise NO_MODEL


def resolve(settings: Settings) -> ModelClient:
    name = choose_provider(settings)
    load_into(PROVIDERS, "providers")
    if name not in PROVIDERS:
        raise ModelMissing(
            f"Unknown model provider '{name}' (known: {', '.join(sorted(PROVIDERS))}).",
            f"未知的模型提供方「{name}」（可选：{', '.join(sorted(PROVIDERS))}）。",
        )
    models = PROVIDERS[name](settings)
    return ModelClient(models=models, provider=name,
                       native_tools=settings.llm_native_tools and calls_tools(models.get("strong")))


def calls_tools(model: BaseChatModel | None) -> bool:
    """Whether a LangChain chat model has native tool calling (it implements `bind_tools`). The embedded
    llama.cpp model and the scripted fake do not: their steps are JSON decoded under a schema."""
    return model is not None and type(model).bind_tools is not BaseChatModel.bind_tools
