"""What a graph run needs besides its state: dependencies and the event callback (LangGraph runtime context)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wenshu.contracts import Event
from wenshu.knowledge.recall import SchemaRecall
from wenshu.providers.base import ModelClient
from wenshu.settings import Settings
from wenshu.sql.validate import SQLValidator

EventCallback = Callable[[Event], None]


@dataclass
class AgentContext:
    settings: Settings
    models: ModelClient
    validator: SQLValidator
    recall: SchemaRecall
    catalogs: "CatalogSource"
    datasource_url: str
    cache: object | None = None  # storage.cache repository, optional
    on_event: EventCallback | None = None

    def emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)


class CatalogSource:
    """Loads and caches catalogs per datasource and data version."""

    def __init__(self, loader: Callable[[str, str], object]):
        self._loader = loader
        self._cache: dict[tuple[str, str], object] = {}

    def get(self, datasource: str, url: str, version: str):
        key = (datasource, version)
        if key not in self._cache:
            self._cache = {k: v for k, v in self._cache.items() if k[0] != datasource}
            self._cache[key] = self._loader(datasource, url)
        return self._cache[key]
