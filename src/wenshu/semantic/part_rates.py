"""A share of rows that ended in a state, asked of a whole: "what share of the orders paid for ended up refunded",
"what percentage of orders were cancelled, by channel", "付款订单里退款的比例". The state is the part, said after the
share cue (or, in Chinese, after the whole and 里 / 中 and before the cue); the whole is the rows, narrowed by the
other states named with it or by the counts named ("paid orders"). The answer is the model's percentage ratio
whose numerator counts exactly the part's state and whose denominator holds the whole: the refund rate, the
cancellation rate. Read from the ratios' own filters, so a model that defines a rate over states gets it asked
this way with no word list; a part said before the share ("被取消的订单，各渠道分别占多少比例": the cancelled
orders are the whole, split by channel) stays a share of a total.
"""

from __future__ import annotations

import re

from wenshu.semantic.counting import own_filter
from wenshu.semantic.cues import CUES
from wenshu.semantic.labels import label_words
from wenshu.semantic.model import SemanticModel

# the whole named before its part, in Chinese: "付款订单里退款的比例", "已支付的订单中最后退款的占几成"
_WHOLE_MARK = re.compile(r"里面|里头|当中|之中|里|中")
# a state said of the rows named before it ("orders were cancelled", "ended up refunded"), not an adjective before
# them ("cancelled orders": those are the whole)
_PREDICATED = re.compile(r"\b(?:were|was|got|gets?|end(?:ed|s)?\s+up|ending\s+up|being|been|are|is)\s+(?:\w+\s+)?$", re.I)


def _said(question: str, words: list[str]) -> tuple[int, int] | None:
    q = question.casefold()
    at = [(i, i + len(w)) for w in words if w and (i := q.find(w.casefold())) >= 0]
    return min(at) if at else None


def _is_part(question: str, cue: re.Match, span: tuple[int, int]) -> bool:
    """Said as the share's part: after the cue and predicated of the rows, or between a 里 / 中 after the whole
    and the cue."""
    start, end = span
    if start >= cue.end():
        said = question[start:end]  # a count's own words may hold the verb: "orders were cancelled"
        return bool(_PREDICATED.search(question[:start] + (said.rsplit(" ", 1)[0] + " " if " " in said else "")))
    marks = [m.end() for m in _WHOLE_MARK.finditer(question[:cue.start()])]
    return bool(marks) and marks[-1] <= start < cue.start()


def part_rate(model: SemanticModel, question: str, measures: list[str], values: dict[str, list[str]],
              measure_words: dict[str, list[str]]) -> tuple[list[str], str] | None:
    """(the measures with the rate in place of the counts of the whole, the dimension whose states it reads), or
    None when no share of a whole ended in a state, or no percentage ratio of the model counts it."""
    cue = re.search(CUES["share"], question, re.I)
    if cue is None:
        return None
    parts = {x.id: x for x in model.measures}
    for d in model.dimensions:
        col, table = d.column.lower(), d.table.lower()
        counted = [x for x in measures if x in parts and parts[x].agg == "count" and parts[x].table.lower() == table
                   and (own_filter(parts[x]) or {}).get(col)]
        words = label_words(d)
        states = [({c}, _said(question, words.get(c, []))) for c in values.get(d.id) or []]  # (codes, where said)
        for x in counted:  # "paid orders": a state of the count's own; "orders" alone narrows nothing
            codes = own_filter(parts[x])[col]
            said = [w for w in measure_words.get(x, []) if any(s.casefold() in w.casefold() for c in codes for s in words.get(c, []))]
            states.append((codes, _said(question, said)))
        states = [(codes, span) for codes, span in states if span is not None]
        if not states:
            continue
        codes, span = max(states, key=lambda s: s[1])  # the part is said last
        if not _is_part(question, cue, span):
            continue
        whole = set().union(*(c for c, s in states if s != span)) - codes
        for r in model.ratios:
            num, den = parts.get(r.numerator), parts.get(r.denominator)
            if num is None or den is None or not (r.scale == 100 or r.unit == "%") or num.agg != "count" \
                    or num.table.lower() != table or den.table.lower() != table:
                continue
            own_num, own_den = own_filter(num), own_filter(den)
            if own_num is None or own_den is None or own_num.get(col) != codes or set(own_num) - {col}:
                continue
            if col in own_den and not whole | codes <= own_den[col] or col not in own_den and whole:
                continue  # the whole the question names is not the ratio's base
            rows = {x for x in measures if x in parts and parts[x].agg == "count" and parts[x].table.lower() == table}
            return [r.id, *(x for x in measures if x not in rows and x != r.id)], d.id  # the whole's counts: the rate's
    return None
