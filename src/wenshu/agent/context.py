"""What a graph run needs besides its state: dependencies and the event callback (LangGraph runtime context)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from wenshu.contracts import Event
from wenshu.engines.execute import data_version
from wenshu.guard import SQLValidator
from wenshu.knowledge.recall import SchemaRecall
from wenshu.providers.base import ModelClient
from wenshu.agent.vocabulary import Vocabulary
from wenshu.settings import Settings

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
    policy: object | None = None  # the datasource's wenshu.guard.GuardPolicy (options["policy"]), optional
    semantic: Callable[[str], object] | None = None  # datasource -> its SemanticModel or None
    nearby: object | None = None  # semantic.nearby.Nearby: phrases matched to the semantic model by meaning
    on_event: EventCallback | None = None

    resolved: dict = field(default_factory=dict, repr=False)  # datasource -> its catalog, for this question
    words: dict = field(default_factory=dict, repr=False)  # datasource -> its Vocabulary, for this question

    def catalog(self, datasource: str):
        """The datasource's catalog, resolved once per question (the context lives for one question)."""
        if datasource not in self.resolved:
            self.resolved[datasource] = self.catalogs.get(datasource, self.datasource_url,
                                                          data_version(self.datasource_url))
        return self.resolved[datasource]

    def vocabulary(self, datasource: str) -> Vocabulary:
        """What the datasource talks about (catalog and semantic model), built once per question."""
        if datasource not in self.words:
            semantic = self.semantic(datasource) if self.semantic else None
            self.words[datasource] = Vocabulary.of(self.catalog(datasource), semantic)
        return self.words[datasource]

    @property
    def disabled_checks(self) -> frozenset[str]:
        """The accuracy checks switched off (agent/checks.py), for ablation."""
        return frozenset(self.settings.disabled_checks)

    def emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)


class CatalogSource:
    """Loads and caches catalogs per datasource and data version.

    With a `store`, catalogs come from its synced snapshot (synced on first use, and again when a
    SQLite file changed: `wenshu.knowledge.sync.current_catalog`); without one, from `loader`.
    """

    def __init__(self, loader: Callable[[str, str], object], store=None):
        self._loader = loader
        self._store = store
        self._cache: dict[tuple[str, str], object] = {}

    def _load(self, datasource: str, url: str):
        if self._store is None:
            return self._loader(datasource, url)
        from wenshu.knowledge.sync import current_catalog

        return current_catalog(self._store, datasource, url)

    def get(self, datasource: str, url: str, version: str):
        key = (datasource, version)
        if key not in self._cache:
            self._cache = {k: v for k, v in self._cache.items() if k[0] != datasource}
            self._cache[key] = self._load(datasource, url)
        return self._cache[key]


def build_recall(settings: Settings, store=None) -> SchemaRecall:
    """The configured schema recall: `HybridRecall` (default) or the whole schema (`recall_mode = "full"`).

    With an app store, vectors and the embedding cache live in it and examples and the glossary come
    from its libraries; without one, everything stays in memory with the bundled examples.
    """
    from wenshu.knowledge.examples import BundledExamples, LibraryExamples
    from wenshu.knowledge.recall import FullSchemaRecall

    examples = LibraryExamples(store.examples) if getattr(store, "examples", None) is not None else BundledExamples()
    if settings.recall_mode == "full":
        return FullSchemaRecall(examples, k=settings.recall_examples)
    from wenshu.knowledge.glossary import GlossaryLibrary
    from wenshu.knowledge.hybrid import HybridRecall
    from wenshu.providers.embeddings import get_embedder

    embedder = get_embedder(settings)
    index = cache = None
    if store is not None and embedder is not None:
        from wenshu.storage.vectors import EmbeddingCache, open_vector_index

        index, cache = open_vector_index(store.engine, settings.vector_index), EmbeddingCache(store.engine)
    glossary = GlossaryLibrary(store.glossary) if getattr(store, "glossary", None) is not None else None
    return HybridRecall(embedder=embedder, index=index, cache=cache, examples=examples, glossary=glossary,
                        budget=settings.recall_budget_tokens, max_tables=settings.recall_max_tables,
                        k_examples=settings.recall_examples, layout=settings.schema_layout,
                        crosslingual="crosslingual_values" not in settings.disabled_checks)
