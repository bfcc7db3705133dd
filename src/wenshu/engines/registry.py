"""Engine adapters by name, registered through the `wenshu.engines` entry point group.

Wenshu's own adapters are declared in its `pyproject.toml` exactly as a plugin declares one:

    [project.entry-points."wenshu.engines"]
    myengine = "my_package.engine:MyEngineAdapter"    # a wenshu.engines.adapter.EngineAdapter subclass

`adapter_for` finds an adapter by its name, one of the SQLAlchemy backends it serves, or its sqlglot
dialect; `adapter_for_url` by a datasource URL. An engine without an adapter is refused with the list
of the engines that are installed; the guard's checks for an unknown dialect use every adapter's
rules at once (`generic`).
"""

from __future__ import annotations

import threading

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from wenshu.engines.adapter import EngineAdapter
from wenshu.errors import InputError
from wenshu.plugins import PluginBroken, load_into

_classes: dict[str, type[EngineAdapter]] = {}
_instances: dict[str, EngineAdapter] = {}
_broken: dict[str, Exception] = {}
_lock = threading.Lock()


class UnknownEngine(InputError):
    code = "unknown_engine"

    def __init__(self, name: str, known: list[str]):
        listed = ", ".join(known)
        super().__init__(
            f"Wenshu has no adapter for the engine '{name}'. Installed engines: {listed}.",
            f"问数没有「{name}」引擎的适配器。已安装的引擎：{listed}。",
        )


def adapters() -> dict[str, EngineAdapter]:
    """Every installed adapter by name, built once each. A plugin that cannot be loaded is left out
    (and named when its engine is asked for by name), so it never takes the others down."""
    with _lock:
        load_into(_classes, "engines")
        for name, cls in _classes.items():
            if name not in _instances and name not in _broken:
                try:
                    _instances[name] = cls()
                except PluginBroken as err:
                    _broken[name] = err
        return dict(_instances)


def names() -> list[str]:
    return sorted(adapters())


def adapter_for(name: str | None) -> EngineAdapter | None:
    """The adapter for an engine name, SQLAlchemy backend or sqlglot dialect; None when none fits."""
    low = (name or "").lower().split("+", 1)[0]
    if not low:
        return None
    found = adapters()
    if low in found:
        return found[low]
    for adapter in found.values():
        if low in adapter.backends:
            return adapter
    for adapter in found.values():
        if low == adapter.dialect:
            return adapter
    return None


def adapter_for_url(url: str) -> EngineAdapter:
    """The adapter for a datasource URL; UnknownEngine when no installed adapter serves it."""
    backend = make_url(url).get_backend_name()
    return require(backend)


def check_engine(url: str) -> EngineAdapter | None:
    """Before a datasource is stored: DriverMissing (naming the pip packages) when its engine's driver is
    not installed. A URL no adapter serves is left to the URL check and the first sync to refuse."""
    try:
        adapter = adapter_for(make_url(url).get_backend_name()) if "://" in url else None
    except sa.exc.ArgumentError:
        return None
    if adapter is not None:
        adapter.check_driver(url)
    return adapter


def require(name: str) -> EngineAdapter:
    adapter = adapter_for(name)
    if adapter is None:
        if name in _broken:
            raise _broken[name]
        raise UnknownEngine(name, names())
    return adapter


def generic() -> EngineAdapter:
    """The rules for SQL of an unknown engine: every installed adapter's refusals at once."""
    found = list(adapters().values())
    key = tuple(sorted(a.name for a in found))
    cached = _generic.get(key)
    if cached is None:
        union = type("GenericRules", (EngineAdapter,), {
            "label": "generic SQL",
            "denied_functions": frozenset().union(*(a.denied_functions for a in found)),
            "system_schemas": frozenset().union(*(a.system_schemas for a in found)),
            "system_schema_prefixes": _merged(a.system_schema_prefixes for a in found),
            "system_table_prefixes": _merged(a.system_table_prefixes for a in found),
            "system_function_prefixes": _merged(a.system_function_prefixes for a in found),
            "own_schemas": frozenset().union(*(a.own_schemas for a in found)),
            "metadata_columns": frozenset().union(*(a.metadata_columns for a in found)),
            "executable_comments": True,
            "files_in_from": True,
        })  # fmt: skip
        cached = _generic[key] = union()
    return cached


def every_system_schema() -> frozenset[str]:
    """System schemas refused on every engine (a query never needs another engine's catalog either)."""
    return generic().system_schemas


def _merged(groups) -> tuple[str, ...]:
    return tuple(sorted({p for group in groups for p in group}))


_generic: dict[tuple, EngineAdapter] = {}
