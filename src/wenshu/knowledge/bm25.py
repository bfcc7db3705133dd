"""BM25 (Okapi) over recall documents.

Each term's postings hold its documents and their precomputed BM25 weights (idf x saturated, length-
normalised tf), so a query is a few numpy gathers and one `bincount`, whatever the catalog's size.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

COMMON = 0.3  # a term in more than this share of documents says little; skipping it keeps queries fast


class BM25:
    def __init__(self, documents: list[tuple[str, ...]], k1: float = 1.2, b: float = 0.75):
        self.n = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float32)
        avg = float(lengths.mean()) if self.n else 0.0
        raw: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for i, terms in enumerate(documents):
            for term, tf in Counter(terms).items():
                raw[term][0].append(i)
                raw[term][1].append(tf)
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, (docs, tfs) in raw.items():
            idx, tf = np.array(docs, dtype=np.int64), np.array(tfs, dtype=np.float32)
            idf = math.log(1 + (self.n - len(docs) + 0.5) / (len(docs) + 0.5))
            norm = tf + k1 * (1 - b + b * lengths[idx] / avg)
            self.postings[term] = (idx, (idf * tf * (k1 + 1) / norm).astype(np.float32))

    def scores(self, query: list[str] | tuple[str, ...]) -> np.ndarray:
        """BM25 score of every document (0 where no query term occurs)."""
        out = np.zeros(self.n, dtype=np.float32)
        for term, qtf in Counter(query).items():
            hit = self.postings.get(term)
            if hit is None or (len(hit[0]) > COMMON * self.n and self.n > 100):
                continue
            out[hit[0]] += hit[1] * (1 + 0.25 * (qtf - 1))  # a document holds a term once: no repeats
        return out

    def search(self, query: list[str] | tuple[str, ...], k: int) -> list[tuple[int, float]]:
        """The best `k` documents with a positive score, best first (ties: lower index first)."""
        if not self.n or k <= 0:
            return []
        scores = self.scores(query)
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        order = sorted(hits.tolist(), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in order]
