"""Names of the semantic model said inside one another: a compound's head, and a split inside a measure's name.

- "product category", 商品品类: two dimension names side by side are one noun, and in English and Chinese
  alike the last one is the head ("the category of the products"): the first is no split of its own.
- "各品牌销售额": a measure's own name may begin with a dimension's name (the model lists 品牌销售额 as a
  word of the item sales); after a split word (各, 按, by, per) that dimension is split as well.
"""

from __future__ import annotations

import re

from wenshu.semantic.model import SemanticModel
from wenshu.semantic.spans import Spans


def heads(question: str, dims: Spans) -> Spans:
    """`dims` without a name followed directly (nothing but spaces between) by another dimension's name."""
    starts = {s for spans in dims.hits.values() for s, _ in spans}
    hits = {}
    for did, spans in dims.hits.items():
        kept = [(s, e) for s, e in spans
                if not any(t >= e and not question[e:t].strip() and t - e <= 1 for t in starts)]
        if kept:
            hits[did] = kept
    return Spans(hits, {k: v for k, v in dims.others.items() if k in hits})


def split_inside(question: str, model: SemanticModel, measure_spans: list[tuple[int, int]],
                 split_before: re.Pattern) -> list[str]:
    """The dimensions whose name begins a measure's name said after a split word ("各品牌销售额": brand)."""
    out = []
    for s, e in measure_spans:
        said = question[s:e].casefold()
        if not split_before.search(question[:s]):
            continue
        for d in model.dimensions:
            if d.kind != "time" and any(w and len(w) < len(said) and said.startswith(w.casefold())
                                        and (not w.isascii() or said[len(w):len(w) + 1] == " ")
                                        for w in d.words()):
                out.append(d.id)
                break
    return list(dict.fromkeys(out))
