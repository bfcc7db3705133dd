"""Which of several measures a ranking is by, when the question says it: "按金额算排前三的退款原因，各退了几笔、多少钱"
ranks the reasons by the refund amount, not by the count named first; "top 3 reasons by amount, with count and
amount" likewise. The word after 按 / "ranked by" names the measure when it ends one of the measure's own
names (金额 ends 退款金额) or is the last word of one ("amount": refund amount), and names only one of them.
"""

from __future__ import annotations

import re

from wenshu.semantic.model import SemanticModel
from wenshu.semantic.variants import entry_words

_ZH = re.compile(r"按照?\s*([\u4e00-\u9fff]{2,6}?)\s*(?:来|的)?\s*(?:算|排|计|高低|多少|降序|升序|倒序|从)")
_EN = re.compile(r"\b(?:rank(?:ed|ing)?|sort(?:ed)?|order(?:ed)?|top\s+\w+(?:\s+\w+)?)\s+by\s+(?:the\s+|their\s+|its\s+)?"
                 r"([a-z]+(?:\s+[a-z]+)?)", re.I)


def ranked_by(model: SemanticModel, question: str, measures: list[str]) -> str | None:
    """The one measure of `measures` the question ranks by, or None."""
    if len(measures) < 2:
        return None
    entries = {e.id: e for e in [*model.measures, *model.ratios]}
    said = [m.group(1) for m in _ZH.finditer(question)]
    for m in _EN.finditer(question):  # "ranked by visitors this week": one word or two
        words = m.group(1).casefold().split()
        said += [" ".join(words[:n]) for n in range(1, len(words) + 1)]
    hits = set()
    for word in said:
        for mid in measures:
            names = [w.casefold() for w in entry_words(model, entries[mid])] if mid in entries else []
            if any(n.endswith(word) if not word.isascii() else
                   (n == word or n.rstrip("s") == word.rstrip("s") or n.split()[-1].rstrip("s") == word.rstrip("s"))
                   for n in names):
                hits.add(mid)
    return hits.pop() if len(hits) == 1 else None
