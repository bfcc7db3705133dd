"""Plugins register the way the built-ins do: through Python entry points, in the manner of `llm`.

A package adds a model provider, an embedder, a chat channel, a SQL engine or a vector index by declaring an entry point in its own
`pyproject.toml`; installing it is all it takes:

    [project.entry-points."wenshu.providers"]
    mymodel = "my_package.provider:factory"      # (Settings) -> {"fast": chat model, "strong": chat model}

    [project.entry-points."wenshu.embedders"]
    myembed = "my_package.embed:factory"         # (Settings) -> Embedder

    [project.entry-points."wenshu.channels"]
    myrobot = "my_package.robot:RobotChannel"    # a wenshu.channels.base.Channel subclass

    [project.entry-points."wenshu.engines"]
    myengine = "my_package.engine:MyAdapter"     # a wenshu.engines.adapter.EngineAdapter subclass

    [project.entry-points."wenshu.vector_indexes"]
    myindex = "my_package.index:factory"          # (app engine) -> a VectorIndex

Wenshu's own providers, embedders and channels are declared the same way in its `pyproject.toml`.
Settings name them by string (`WENSHU_LLM_PROVIDER=mymodel`); an unknown name is refused with the
list of the names that are installed. A plugin that fails to load is named in a clear error and
never takes the built-ins down with it.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from wenshu.errors import InputError

GROUPS = {
    "providers": "wenshu.providers", "embedders": "wenshu.embedders", "channels": "wenshu.channels",
    "engines": "wenshu.engines", "vector_indexes": "wenshu.vector_indexes",
}  # fmt: skip


class PluginBroken(InputError):
    """An installed plugin's entry point could not be loaded."""

    code = "plugin_broken"


_LOADED: dict[tuple[str, int], dict] = {}  # (kind, id) -> the registry filled (held, so its id stays its own)


def load_into(registry: dict, kind: str) -> dict:
    """Add the entry points of `kind` (providers, embedders, channels) that `registry` does not hold yet;
    what is already registered (in-process, e.g. a test's) wins over an entry point of the same name.
    The installed packages are scanned once per registry, not on every request."""
    if _LOADED.get((kind, id(registry))) is registry:
        return registry
    _LOADED[(kind, id(registry))] = registry
    for ep in entry_points(group=GROUPS[kind]):
        if ep.name in registry:
            continue
        try:
            registry[ep.name] = ep.load()
        except Exception as exc:  # any import error of someone else's package: name it, keep going
            dist = getattr(ep.dist, "name", None) or "?"
            registry[ep.name] = _broken(ep.name, kind, dist, exc)
    return registry


def _broken(name: str, kind: str, dist: str, exc: Exception):
    def refuse(*_args, **_kwargs):
        raise PluginBroken(
            f"The {kind[:-1]} '{name}' from the installed package '{dist}' could not be loaded: {exc}",
            f"已安装的包「{dist}」提供的「{name}」无法加载：{exc}",
        )

    return refuse
