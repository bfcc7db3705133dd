"""Hybrid schema recall: dense + keyword + values + glossary + structure, fused into one ranking.

    recall = HybridRecall(embedder=get_embedder(settings), index=open_vector_index(store.engine),
                          cache=EmbeddingCache(store.engine), examples=BundledExamples(), glossary=library)
    result = recall.recall("华东区上个月的销售额", catalog)

Signals (each a ranked list of documents, fused by `fusion.rrf`): dense cosine over the vector index,
BM25 over the keyword terms (query expanded by matched glossary terms), the sampled-values index
(pins `{table, column, value}`), the tables of matched glossary topics, and the tables of the previous
turn's SQL. `selection.select` then cuts the ranking to the token budget and closes join paths.
"""

from __future__ import annotations

import re
import threading
from typing import Protocol

from wenshu.catalog import Catalog
from wenshu.knowledge.crosslingual import CrossLingualValues
from wenshu.knowledge.documents import schema_hash
from wenshu.knowledge.examples import ExampleSource
from wenshu.knowledge.fusion import WEIGHTS, rrf, table_scores
from wenshu.knowledge.recall import RecallResult
from wenshu.knowledge.recall_index import RecallIndex, VectorIndex, build_index
from wenshu.knowledge.selection import select
from wenshu.knowledge.tokenize import _CJK, tokens

SIGNAL_DEPTH = 60  # how many documents each signal ranks
DENSE_FLOOR = 0.2  # cosine below this is not evidence
MAX_CACHED = 8


class GlossaryLike(Protocol):
    def match(self, question: str) -> list: ...  # terms with term, definition, sql, synonyms, tables


def _term_dict(term) -> dict:
    if hasattr(term, "to_dict"):
        return term.to_dict()
    return {k: getattr(term, k, None) for k in ("term", "definition", "sql", "synonyms", "tables")}


class HybridRecall:
    def __init__(self, embedder=None, index: VectorIndex | None = None, cache=None,
                 examples: ExampleSource | None = None, glossary: GlossaryLike | None = None, budget: int = 1500,
                 max_tables: int = 10, k_examples: int = 2, keep_small: bool = True,
                 weights: dict[str, float] | None = None, layout: str = "compact", crosslingual: bool = False):
        if embedder is not None and index is None:
            from wenshu.storage.vectors import MemoryVectorIndex

            index = MemoryVectorIndex()
        self.embedder, self.index, self.cache = embedder, index, cache
        self.examples, self.glossary = examples, glossary
        self.budget, self.max_tables, self.k_examples = budget, max_tables, k_examples
        self.keep_small, self.layout, self.crosslingual = keep_small, layout, crosslingual
        self._linkers: dict[tuple[str, str], CrossLingualValues] = {}  # per (datasource, index hash)
        self.weights = dict(WEIGHTS if weights is None else weights)
        self._by_id: dict[int, tuple[Catalog, RecallIndex]] = {}
        self._by_hash: dict[tuple[str, str], RecallIndex] = {}
        self._lock = threading.Lock()

    # -- index -------------------------------------------------------------------------------
    def index_for(self, catalog: Catalog) -> RecallIndex:
        """The recall index of a catalog: by identity (catalogs are snapshots), then by schema hash."""
        with self._lock:
            hit = self._by_id.get(id(catalog))
            if hit is not None and hit[0] is catalog:
                return hit[1]
            key = (catalog.datasource, schema_hash(catalog))
            built = self._by_hash.get(key)
            if built is None:
                built = build_index(catalog, embedder=self.embedder, index=self.index, cache=self.cache, key=key[1])
                self._by_hash = {k: v for k, v in list(self._by_hash.items())[-(MAX_CACHED - 1):]} | {key: built}
            self._by_id = {k: v for k, v in list(self._by_id.items())[-(MAX_CACHED - 1):]}
            self._by_id[id(catalog)] = (catalog, built)
            return built

    def _linked(self, idx: RecallIndex, question: str, found) -> list:
        """English values the question's Chinese words name (knowledge/crosslingual.py), not found already."""
        if not (self.crosslingual and self.embedder is not None and _CJK.search(question)):
            return []
        with self._lock:
            key = (idx.catalog.datasource, idx.hash)
            linker = self._linkers.get(key)
            if linker is None:
                linker = CrossLingualValues.build(idx.values, self.embedder, self.cache)
                self._linkers = {k: v for k, v in list(self._linkers.items())[-(MAX_CACHED - 1):]}
                self._linkers[key] = linker
        known = {(h.table, h.column, h.value) for h in found}
        return [h for h in linker.match(question, self.embedder) if (h.table, h.column, h.value) not in known]

    # -- signals -----------------------------------------------------------------------------
    def _glossary_terms(self, datasource: str, question: str) -> list:
        g = self.glossary
        if g is None:
            return []
        if hasattr(g, "for_datasource"):
            g = g.for_datasource(datasource)
        return list(g.match(question)) if g is not None else []

    def _dense(self, idx: RecallIndex, question: str) -> tuple[list[int], float | None]:
        """(documents ranked by meaning, the best cosine of any; None without embeddings)."""
        if not idx.dense:
            return [], None
        qvec = self.embedder.embed([question])[0]
        hits = [(i, score) for i, score in self.index.search(qvec, SIGNAL_DEPTH, idx.catalog.datasource)
                if i in idx.positions]  # fmt: skip
        best = max((float(score) for _, score in hits), default=0.0)
        return [idx.positions[i] for i, score in hits if score >= DENSE_FLOOR], best

    def _table_docs(self, idx: RecallIndex, names) -> list[int]:
        out = []
        for name in names:
            table = idx.catalog.table(name) if name not in idx.tables else idx.tables[name]
            if table is not None and f"t:{table.name}" in idx.positions:
                out.append(idx.positions[f"t:{table.name}"])
        return list(dict.fromkeys(out))

    def signals(self, idx: RecallIndex, question: str, terms: list, value_hits, previous_sql: str | None,
                dense: list[int] | None = None) -> dict:
        expansion = []
        for t in terms:
            d = _term_dict(t)
            expansion += [d.get("term") or "", *(d.get("synonyms") or []), d.get("sql") or ""]
        query = tokens(question) + tokens(" ".join(expansion))
        out = {
            "dense": dense if dense is not None else self._dense(idx, question)[0],
            "keyword": [i for i, _ in idx.bm25.search(query, SIGNAL_DEPTH)],
            "values": list(dict.fromkeys(idx.positions[f"c:{h.table}.{h.column}"] for h in value_hits
                                         if f"c:{h.table}.{h.column}" in idx.positions)),
            "glossary": self._table_docs(idx, [t for term in terms for t in (_term_dict(term).get("tables") or [])]),
        }
        if previous_sql:
            words = re.findall(r"[A-Za-z_][\w$]*", previous_sql)
            lower = {n.lower(): n for n in idx.tables}
            out["history"] = self._table_docs(idx, [lower[w.lower()] for w in words if w.lower() in lower])
        return {k: v for k, v in out.items() if v}

    # -- recall ------------------------------------------------------------------------------
    def named_values(self, question: str, catalog: Catalog) -> list[dict]:
        """The values the question names, read from the value index alone (no embeddings): cheap enough for
        the intent gate."""
        return [h.as_dict() for h in self.index_for(catalog).values.match(question)]

    def recall(self, question: str, catalog: Catalog, *, previous_sql: str | None = None) -> RecallResult:
        idx = self.index_for(catalog)
        terms = self._glossary_terms(catalog.datasource, question)
        value_hits = idx.values.match(question)
        linked = self._linked(idx, question, value_hits)
        value_hits = value_hits + linked
        dense, best = self._dense(idx, question)
        sig = self.signals(idx, question, terms, value_hits, previous_sql, dense=dense)
        fused = table_scores(rrf(sig, self.weights), idx.docs)
        picked = select(idx, fused, value_hits, budget=self.budget, max_tables=self.max_tables,
                        keep_small=self.keep_small, scale=sum(self.weights.values()), layout=self.layout)
        examples = self.examples.similar(catalog.datasource, question, self.k_examples) \
            if self.examples is not None and self.k_examples else []
        return RecallResult(
            schema_block=picked.block, tables=picked.tables, columns=picked.columns, values=picked.values,
            glossary=[_term_dict(t) for t in terms], examples=examples, tokens=picked.tokens,
            full_schema_tokens=idx.full_tokens, whole=picked.whole,
            signals={k: len(v) for k, v in sig.items()} | ({"crosslingual": len(linked)} if linked else {}),
            best_similarity=best,
        )
