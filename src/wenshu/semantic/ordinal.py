"""A value of a ranked dimension named with "or higher" / "及以上": that member and every one above it.

A dimension whose codes rank its members (`ordered: true` in the semantic model: member levels 0 普通 … 3
钻石, a city tier counted the other way is not declared so) reads "金卡及以上", "银卡以上的会员", "gold level or
higher", "gold members and above" as the codes from the named one up, and "银卡及以下", "silver or lower" as the
codes up to it. The words between the value and the range word may only be the words of the dimension's names
("gold level or higher", "银卡会员以上"). Nothing is read for a dimension the model does not declare ranked, so
an order status named "已支付及以上" stays the one status.
"""

from __future__ import annotations

import re

from wenshu.knowledge.tokenize import tokens
from wenshu.semantic.model import SemanticModel

_UP = re.compile(r"(?:及|或|和|以及)?以上|\bor\s+(?:higher|above|better|more)\b|\band\s+(?:above|up|higher|over)\b|\+|\bplus\b",
                 re.I)
_DOWN = re.compile(r"(?:及|或|和|以及)?以下|\bor\s+(?:lower|below|less)\b|\band\s+(?:below|under|lower)\b", re.I)


def _rank(code: str) -> float | None:
    try:
        return float(code)
    except ValueError:
        return None


def ranged(question: str, model: SemanticModel, values: dict[str, list[str]],
           value_at: dict[str, list[tuple[int, int]]]) -> tuple[dict[str, list[str]], list[str]]:
    """(values, ids): the named values with each ranked dimension's "or higher / or lower" value widened to the
    codes above (below) it, and the ids of the dimensions so widened."""
    out, widened = dict(values), []
    for d in model.dimensions:
        codes = values.get(d.id) or []
        if not d.ordered or len(codes) != 1 or _rank(codes[0]) is None:
            continue
        own = sorted({t for w in d.words() for t in tokens(w) if len(t) > 1}, key=len, reverse=True)  # 会员, level
        gap = re.compile(r"(?:\s|" + "|".join(re.escape(t) + "s?" for t in own) + ")*", re.I) if own else re.compile(r"\s*")
        after = [question[gap.match(question, e).end():] for _, e in value_at.get(d.id, [])]
        up, down = any(_UP.match(a) for a in after), any(_DOWN.match(a) for a in after)
        if up == down:
            continue
        pivot = _rank(codes[0])
        ranks = {c: _rank(c) for c in d.labels}
        out[d.id] = sorted((c for c, r in ranks.items() if r is not None and (r >= pivot if up else r <= pivot)),
                           key=lambda c: ranks[c])
        widened.append(d.id)
    return out, widened
