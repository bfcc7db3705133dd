"""Everything recall precomputes for one catalog: documents, BM25, values, join graph, vectors.

`build_index` is called once per catalog (the hybrid recall caches it per schema hash). Dense vectors
are synchronised with the vector index by content hash: unchanged documents are skipped, changed ones
are looked up in the embedding cache and only then embedded, removed ones are deleted. Vectors are
written only after every document is embedded, so a failure leaves the previous index as it was.
`VectorIndex` is the interface recall needs of a vector index; `wenshu.storage.vectors` implements it.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from wenshu.catalog import Catalog, TableInfo
from wenshu.knowledge.bm25 import BM25
from wenshu.knowledge.documents import Doc, build_documents, schema_hash
from wenshu.knowledge.schema_block import compact_table, estimate_tokens
from wenshu.knowledge.structure import JoinGraph
from wenshu.knowledge.value_index import ValueIndex


class VectorIndex(Protocol):
    def upsert(self, datasource: str, ids: list[str], vectors: np.ndarray, hashes: list[str]) -> None: ...

    def search(self, vector: np.ndarray, k: int, datasource: str) -> list[tuple[str, float]]: ...

    def hashes(self, datasource: str) -> dict[str, str]: ...  # doc id -> content hash

    def delete(self, datasource: str, ids: list[str] | None = None) -> None: ...  # None: all of it

    def describe(self) -> str: ...  # which index, for `wenshu doctor`


@dataclass
class RecallIndex:
    catalog: Catalog
    hash: str
    docs: list[Doc]
    bm25: BM25
    values: ValueIndex
    graph: JoinGraph
    tables: dict[str, TableInfo]
    table_tokens: dict[str, int]
    full_tokens: int
    positions: dict[str, int] = field(default_factory=dict)  # doc id -> position in docs
    dense: bool = False
    stats: dict = field(default_factory=dict)  # build timings and counts


def _vector_key(model: str, doc: Doc) -> str:
    return hashlib.sha1(f"{model}\x00{doc.hash}".encode()).hexdigest()


def sync_vectors(docs: list[Doc], datasource: str, embedder, index: VectorIndex, cache=None) -> dict:
    """Bring the vector index for `datasource` in line with `docs`; returns counts of what was done."""
    keys = {d.id: _vector_key(embedder.name, d) for d in docs}
    existing = index.hashes(datasource)
    stale = [d for d in docs if existing.get(d.id) != keys[d.id]]
    removed = [i for i in existing if i not in keys]
    vectors: dict[str, np.ndarray] = cache.get(embedder.name, [keys[d.id] for d in stale]) if cache else {}
    todo = [d for d in stale if keys[d.id] not in vectors]
    if todo:
        fresh = embedder.embed([d.text for d in todo])
        if cache is not None:
            cache.put(embedder.name, [keys[d.id] for d in todo], fresh)
        vectors.update({keys[d.id]: v for d, v in zip(todo, fresh, strict=True)})
    if removed:
        index.delete(datasource, removed)
    if stale:
        index.upsert(datasource, [d.id for d in stale], np.vstack([vectors[keys[d.id]] for d in stale]),
                     [keys[d.id] for d in stale])
    return {"documents": len(docs), "updated": len(stale), "embedded": len(todo), "removed": len(removed)}


def build_index(catalog: Catalog, *, embedder=None, index: VectorIndex | None = None, cache=None,
                key: str | None = None) -> RecallIndex:
    t0 = time.perf_counter()
    docs = build_documents(catalog)
    tables = {t.name: t for t in catalog.tables}
    table_tokens = {t.name: estimate_tokens(compact_table(t)) for t in catalog.tables}
    out = RecallIndex(
        catalog=catalog, hash=key or schema_hash(catalog), docs=docs, bm25=BM25([d.terms for d in docs]),
        values=ValueIndex.from_catalog(catalog), graph=JoinGraph(catalog), tables=tables,
        table_tokens=table_tokens, full_tokens=sum(table_tokens.values()),
        positions={d.id: i for i, d in enumerate(docs)},
    )
    t1 = time.perf_counter()
    out.stats = {"documents": len(docs), "values": len(out.values), "keyword_s": round(t1 - t0, 3)}
    if embedder is not None and index is not None and docs:
        out.stats.update(sync_vectors(docs, catalog.datasource, embedder, index, cache))
        out.dense = True
    out.stats["dense_s"] = round(time.perf_counter() - t1, 3)
    return out
