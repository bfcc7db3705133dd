"""Hybrid passage search: BM25 over the chunks' jieba/English terms plus dense cosine from the vector
index, fused by reciprocal rank, with a relevance floor that says "not in the documents".

Only chunks of searchable documents take part (the keyword index is built from them, and dense hits
are kept only when they are among them), so vectors of a document whose ingest never finished are
never returned. The keyword index is cached per collection and rebuilt when the collection's
searchable documents change (`KbDocuments.signature`).

A passage is relevant when its cosine similarity to the question reaches DENSE_FLOOR, or when it holds
at least COVERAGE_FLOOR of the question's words (English words and jieba words, not the character
bigrams that only help recall), weighted by how rare each word is in the collection.
"""

from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass

import numpy as np

from wenshu.kb.ingest import namespace
from wenshu.knowledge.bm25 import BM25
from wenshu.knowledge.fusion import rrf
from wenshu.knowledge.tokenize import chinese_words, english_words, tokens
from wenshu.storage.kb_store import SEARCHABLE, KbChunk, KbDocuments

DEPTH = 50  # candidates each signal ranks
RRF_K = 20
DENSE_FLOOR = 0.22  # bench kb: the floors that keep recall@5 >= 90 % and refuse 7 of 8 unanswerable questions
COVERAGE_FLOOR = 0.4
KEYWORD_MIN_COVERAGE = 0.35  # a BM25 hit holding less of the question's words is noise (a shared bigram)
WEIGHTS = {"dense": 1.0, "keyword": 1.0}


@dataclass(frozen=True)
class Passage:
    chunk_id: str
    document_id: str
    document: str  # the file name
    title: str
    heading: str
    page: int | None
    text: str
    score: float  # fused
    similarity: float  # dense cosine, 0 when the dense signal did not rank it
    coverage: float  # share of the question's terms it holds (idf weighted)

    @property
    def where(self) -> str:
        """Section path and page, as a citation shows it."""
        return " · ".join(p for p in (self.heading, f"p. {self.page}" if self.page else "") if p)

    def to_dict(self) -> dict:
        return {**asdict(self), "score": round(self.score, 4), "similarity": round(self.similarity, 4),
                "coverage": round(self.coverage, 4)}


@dataclass(frozen=True)
class SearchResult:
    query: str
    passages: list[Passage]

    @property
    def found(self) -> bool:
        return bool(self.passages)

    def to_dict(self) -> dict:
        return {"query": self.query, "found": self.found, "passages": [p.to_dict() for p in self.passages]}


class KeywordIndex:
    """BM25 and term sets over one collection's searchable chunks."""

    def __init__(self, chunks: list[KbChunk], documents: dict[str, tuple[str, str]]):
        self.chunks = chunks
        self.documents = documents  # document id -> (name, title)
        self.positions = {c.id: i for i, c in enumerate(chunks)}
        terms = [tuple(c.terms.split()) for c in chunks]
        self.term_sets = [set(t) for t in terms]
        self.bm25 = BM25(terms)

    def idf(self, term: str) -> float:
        hit = self.bm25.postings.get(term)
        df = len(hit[0]) if hit is not None else 0
        return math.log(1 + (self.bm25.n - df + 0.5) / (df + 0.5))

    def coverage(self, query_terms: set[str], i: int) -> float:
        weights = {t: self.idf(t) for t in query_terms}
        total = sum(weights.values())
        return sum(w for t, w in weights.items() if t in self.term_sets[i]) / total if total else 0.0


class Searcher:
    def __init__(self, docs: KbDocuments, embedder, index):
        self.docs, self.embedder, self.index = docs, embedder, index
        self._cache: dict[str, tuple[tuple, KeywordIndex]] = {}
        self._lock = threading.Lock()

    def keyword_index(self, collection: str) -> KeywordIndex:
        signature = self.docs.signature(collection)
        with self._lock:
            cached = self._cache.get(collection)
            if cached is None or cached[0] != signature:
                documents = {d.id: (d.name, d.title or d.name) for d in self.docs.list(collection, SEARCHABLE)}
                chunks = [c for c in self.docs.searchable_chunks(collection) if c.document_id in documents]
                cached = self._cache[collection] = (signature, KeywordIndex(chunks, documents))
            return cached[1]

    def search(self, query: str, collection: str = "default", k: int = 5, floor: bool = True) -> SearchResult:
        """The best `k` relevant passages; `floor=False` ranks without the relevance floor (benchmarks)."""
        kw = self.keyword_index(collection)
        if not kw.chunks or not query.strip():
            return SearchResult(query, [])
        terms = tokens(query)
        wanted = set(english_words(query) + chinese_words(query, bigrams=False)) or set(terms)
        cover = {i: kw.coverage(wanted, i) for i, _ in kw.bm25.search(terms, DEPTH)}
        keyword = [i for i in cover if cover[i] >= KEYWORD_MIN_COVERAGE]  # BM25 order, stray matches dropped
        similarity: dict[int, float] = {}
        if self.embedder is not None:
            vector = self.embedder.embed([query])[0]
            for chunk_id, score in self.index.search(np.asarray(vector), DEPTH, namespace(collection)):
                i = kw.positions.get(chunk_id)  # vectors of unpublished documents have no position
                if i is not None:
                    similarity[i] = score
        dense = sorted(similarity, key=lambda i: -similarity[i])
        fused = rrf({"dense": dense, "keyword": keyword}, WEIGHTS, k=RRF_K)
        passages = []
        for i in sorted(fused, key=lambda i: (-fused[i], i)):
            coverage = cover[i] if i in cover else kw.coverage(wanted, i)
            sim = similarity.get(i, 0.0)
            if floor and sim < DENSE_FLOOR and coverage < COVERAGE_FLOOR:
                continue
            c = kw.chunks[i]
            name, title = kw.documents[c.document_id]
            passages.append(Passage(c.id, c.document_id, name, title, c.heading, c.page, c.text, fused[i], sim,
                                    coverage))
            if len(passages) == k:
                break
        return SearchResult(query, passages)
