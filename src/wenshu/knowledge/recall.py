"""Schema recall: which part of the catalog goes into the prompt.

`SchemaRecall` is the interface; `FullSchemaRecall` (this issue) returns the whole schema, which is
right for small databases; `HybridRecall` (knowledge/hybrid.py: dense + keyword + values + structure)
implements the same interface and is the default (`recall_mode = "hybrid"`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from wenshu.catalog import Catalog
from wenshu.knowledge.examples import BundledExamples, ExampleSource
from wenshu.knowledge.schema_block import estimate_tokens, render_schema


@dataclass
class RecallResult:
    schema_block: str
    tables: list[dict] = field(default_factory=list)  # [{name, score}], best first
    values: list[dict] = field(default_factory=list)  # [{table, column, value}] named in the question
    examples: list[dict] = field(default_factory=list)  # [{question, sql}]
    tokens: int = 0
    full_schema_tokens: int = 0
    columns: list[dict] = field(default_factory=list)  # [{table, column, score}] shown in the block
    glossary: list[dict] = field(default_factory=list)  # matched terms {term, definition, sql, synonyms, tables}
    signals: dict = field(default_factory=dict)  # signal -> how many documents it ranked (diagnostics)
    whole: bool = False  # the block is the whole schema, the same for every question of the datasource
    best_similarity: float | None = None  # the question's best cosine to any table or column (None: no embeddings)

    def to_dict(self) -> dict:
        """The public JSON shape (`wenshu db recall --json`)."""
        return {"tables": self.tables, "columns": self.columns, "values": self.values, "glossary": self.glossary,
                "examples": self.examples, "schema_block": self.schema_block, "tokens": self.tokens,
                "full_schema_tokens": self.full_schema_tokens}


class SchemaRecall(Protocol):
    def recall(self, question: str, catalog: Catalog, *, previous_sql: str | None = None) -> RecallResult: ...

    def named_values(self, question: str, catalog: Catalog) -> list[dict]:
        """The catalog's values the question names ([{table, column, value}]), from the value index."""
        ...


class FullSchemaRecall:
    """The whole schema, for databases small enough to fit a prompt, plus the most similar examples."""

    def __init__(self, examples: ExampleSource | None = None, k: int = 2):
        self.examples = examples if examples is not None else BundledExamples()
        self.k = k
        self._blocks: dict[int, tuple[str, int]] = {}

    def recall(self, question: str, catalog: Catalog, *, previous_sql: str | None = None) -> RecallResult:
        if id(catalog) not in self._blocks:  # catalogs are immutable snapshots: render each once
            block = render_schema(catalog)
            self._blocks = {id(catalog): (block, estimate_tokens(block))}
        block, tokens = self._blocks[id(catalog)]
        return RecallResult(
            schema_block=block,
            tables=[{"name": t.name, "score": 1.0} for t in catalog.tables],
            examples=self.examples.similar(catalog.datasource, question, self.k) if self.k else [],
            tokens=tokens,
            full_schema_tokens=tokens,
            whole=True,
        )

    def named_values(self, question: str, catalog: Catalog) -> list[dict]:
        return []  # no value index: the whole schema is the prompt
