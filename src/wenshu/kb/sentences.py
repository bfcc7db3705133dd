"""The sentences of retrieved passages closest to a question, picked by the embedder.

A passage is a chunk of a section: a PDF page or a policy's paragraph holds several rules, and a small
model reading three of them often answers from the wrong sentence, most of all when the passage is in
the other language ("Who has to approve a change to how GMV is calculated?" read from a Chinese page
about GMV, 客单价 and the approval of changes). The search already ranks passages by their closeness to
the request, its translation and the model's query (`assistant.documents.closest`); this ranks their
sentences the same way, dense cosine plus the share of the query's words each sentence holds, so the
documents tool can name the few sentences most likely to answer beside the passages it shows.
"""

from __future__ import annotations

import re

import numpy as np

from wenshu.knowledge.tokenize import tokens

_BREAK = re.compile(r"(?<=[。！？；!?;])|(?<=[.!?])\s+|\n+")
_TABLE_RULE = re.compile(r"^[\s|:\-]+$")
MIN_CHARS = 6  # shorter pieces (a heading number, "GMV") are no sentence
MAX_CHARS = 300  # a longer run without a break (a table row, a list) is cut here


def split_sentences(text: str) -> list[str]:
    """A passage's sentences, in order: split after Chinese and English sentence ends and at line breaks;
    table rules and fragments shorter than MIN_CHARS left out."""
    parts = (p.strip() for p in _BREAK.split(text or ""))
    return [p[:MAX_CHARS] for p in parts if p and len(p) >= MIN_CHARS and not _TABLE_RULE.match(p)]


def closest_sentences(embedder, passages: list, queries: list[str], k: int) -> list[str]:
    """The `k` sentences of `passages` closest to any of `queries` (best cosine plus the share of that query's
    words the sentence holds), best first, each once; [] without an embedder, queries or sentences."""
    queries = [q for q in dict.fromkeys(queries) if q and q.strip()]
    sentences = list(dict.fromkeys(s for p in passages for s in split_sentences(p.text)))
    if embedder is None or not queries or not sentences or k <= 0:
        return []
    vectors = embedder.embed([*queries, *sentences])
    cosine = vectors[len(queries):] @ vectors[: len(queries)].T  # sentences x queries
    words = [set(tokens(q)) for q in queries]
    held = [set(tokens(s)) for s in sentences]
    share = np.array([[len(w & h) / len(w) if w else 0.0 for w in words] for h in held])
    best = (cosine + share).max(axis=1)
    return [sentences[i] for i in np.argsort(-best, kind="stable")[:k]]
