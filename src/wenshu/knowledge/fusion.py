"""Reciprocal-rank fusion of the recall signals, and table scores from documents.

Each signal is a ranked list of document indices. A document's fused score is
`sum(weight[s] / (K + rank_s))` over the signals that ranked it (ranks from 1). A table's score is its
own document's score plus its best columns' (the best counts fully, the next two at half), so a table
is found either by its name/comment or by a column the question names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

K = 10
WEIGHTS = {"dense": 1.0, "keyword": 1.0, "values": 1.5, "glossary": 1.2, "history": 1.0}
SECOND_COLUMNS = 0.5  # weight of a table's 2nd and 3rd best columns


@dataclass
class Fused:
    docs: dict[int, float] = field(default_factory=dict)  # doc index -> fused score
    tables: dict[str, float] = field(default_factory=dict)  # table -> score
    columns: dict[tuple[str, str], float] = field(default_factory=dict)  # (table, column) -> score


def rrf(signals: dict[str, list[int]], weights: dict[str, float] | None = None, k: int = K) -> dict[int, float]:
    weights = WEIGHTS if weights is None else weights
    out: dict[int, float] = defaultdict(float)
    for name, ranked in signals.items():
        w = weights.get(name, 1.0)
        for rank, doc in enumerate(ranked, start=1):
            out[doc] += w / (k + rank)
    return dict(out)


def table_scores(doc_scores: dict[int, float], docs) -> Fused:
    """Roll document scores up to tables and columns (`docs[i]` has kind, table, column)."""
    fused = Fused(docs=doc_scores)
    own: dict[str, float] = defaultdict(float)
    cols: dict[str, list[float]] = defaultdict(list)
    for i, score in doc_scores.items():
        d = docs[i]
        if d.kind == "table":
            own[d.table] += score
        else:
            cols[d.table].append(score)
            fused.columns[(d.table, d.column)] = score
    for table in set(own) | set(cols):
        best = sorted(cols.get(table, []), reverse=True)
        fused.tables[table] = own.get(table, 0.0) + (best[0] if best else 0.0) + SECOND_COLUMNS * sum(best[1:3])
    return fused


def ranked(scores: dict, limit: int | None = None) -> list:
    """Keys by descending score, ties broken by key for a stable order."""
    keys = sorted(scores, key=lambda key: (-scores[key], str(key)))
    return keys if limit is None else keys[:limit]
