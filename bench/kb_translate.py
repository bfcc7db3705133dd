"""`python -m bench kb --translate`: retrieval with each question also searched in the other language, as
the assistant's search_documents tool does (kb/crosslingual.py): the chat model (embedded by default, as
the settings choose) translates each answerable question once, and the request's and the translation's
passages are ranked together (assistant.documents.search_both, without a model-written query): at most
MAX_PASSAGES, so "recall@5" here is the share shown. Beside it, the same searches in the order the tool used
until 2026-12-04 (`alternated`). Reported beside the plain retrieval figures; a held-out set's questions are
never printed by it.
"""

from __future__ import annotations

import statistics
import time
from itertools import zip_longest


def alternated(kb, collection: str, request: str, translated: str, k: int) -> list:
    """The tool's order until 2026-12-04, kept here as the baseline of the ranked one: each search's first `k`
    passages taken in turn (the request's first), once each."""
    lists = [kb.search(q, collection, k=k).passages for q in dict.fromkeys(q for q in (request, translated) if q)]
    return list({p.chunk_id: p for row in zip_longest(*lists) for p in row if p is not None}.values())[:k]


def translated_recall(kb, questions: list[dict], models, rank_of) -> dict:
    from wenshu.assistant.documents import MAX_PASSAGES, search_both
    from wenshu.kb.crosslingual import translate
    from wenshu.kb.library import DEFAULT_COLLECTION

    rows = []
    for q in (q for q in questions if q.get("doc")):
        t0 = time.perf_counter()
        translated = translate(models, q["q"])
        seconds = time.perf_counter() - t0
        merged = search_both(kb, DEFAULT_COLLECTION, "", q["q"], (), translated)
        before = alternated(kb, DEFAULT_COLLECTION, q["q"], translated, MAX_PASSAGES)
        rows.append({"q": q["q"], "translated": translated, "seconds": round(seconds, 2),
                     "rank": rank_of(merged, q["doc"], q["answer"]),
                     "rank_alternated": rank_of(before, q["doc"], q["answer"])})
    n = max(1, len(rows))
    return {"questions": len(rows), "recall_at_1": round(sum(r["rank"] == 1 for r in rows) / n, 4),
            "recall_at_5": round(sum(r["rank"] is not None for r in rows) / n, 4),
            "mrr": round(sum(1 / r["rank"] for r in rows if r["rank"]) / n, 4),
            "alternated_recall_at_1": round(sum(r["rank_alternated"] == 1 for r in rows) / n, 4),
            "alternated_recall_shown": round(sum(r["rank_alternated"] is not None for r in rows) / n, 4),
            "translate_s_median": round(statistics.median(r["seconds"] for r in rows), 2) if rows else None,
            "untranslated": sum(not r["translated"] for r in rows), "rows": rows}
