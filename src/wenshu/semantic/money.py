"""Money asked of the data: "how much money went back in refunds" is the money measure of the refunds' rows,
and "refund reasons: how much money went back for each" the one money measure of the rows a named dimension
lives on. Rows said to have made the money asked ("app orders generated the most GMV") are its scope, not a count,
and a follow-up asking for the amount instead ("改成按金额算") is the money of the previous measure's rows. A money
measure is a sum in a currency (the semantic model's `unit`).
"""

from __future__ import annotations

import re

from wenshu.semantic.counting import asked
from wenshu.semantic.mentions import Mentions, cue
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.ratios import MONEY_UNITS


def money_of_rows(m: Mentions, model: SemanticModel, question: str) -> list[str]:
    """"Refund reasons: how much money went back for each": no measure named, money asked of the rows a named
    dimension lives on; the one money measure of that table, if it has exactly one."""
    tables = {d.table.lower() for d in model.dimensions if d.id in m.dimensions + m.split}
    money = [x.id for x in _money_measures(model) if x.table.lower() in tables]
    return money if cue("money", question) and len(money) == 1 else []


def _money_measures(model: SemanticModel) -> list:
    """Sums in a currency (the model's `unit`): the measures that answer "how much money"."""
    return [x for x in model.measures if (x.unit or "").casefold() in MONEY_UNITS and x.agg == "sum"]


def money_twins(measures: list[str], model: SemanticModel, question: str) -> list[str]:
    """"How much money went back in refunds": a count named where the question asks for money is the money
    measure of the same rows (same table, same default filter), when the model has one and none is named."""
    by_id, money = {x.id: x for x in model.measures}, _money_measures(model)
    per_money = {r.id for r in model.ratios if by_id.get(r.numerator) in money}  # 平均一单多少钱: the money asked is AOV's
    if not cue("money", question) or any(by_id[x] in money for x in measures if x in by_id) or per_money & set(measures):
        return measures
    out = []
    for mid in measures:
        me = by_id.get(mid)
        twin = next((x for x in money if me is not None and me.agg == "count" and x.table.lower() == me.table.lower()
                     and x.filter == me.filter), None)
        # "how many refunds, and how much money": both; "how much money went back in refunds": the money
        out += [mid] if twin is None else [mid, twin.id] if asked(question) else [twin.id]
    return list(dict.fromkeys(out))


# a verb of money made right after the rows counted ("mini-program orders generated the highest GMV", 订单贡献了)
_MADE = r"\s*(?:that\s+|which\s+)?(?:generated|generate|brought\s+in|bring\s+in|made|earned|produced|contributed|drove" \
        r"|贡献了?|带来了?|产生了?|创造了?)"
# the money of the rows, said before them ("spent more than ten thousand yuan on paid orders", "saved through coupons
# on paid orders"): the rows the money is counted on
_ON_ROWS = r"\bon\s+(?:their\s+|the\s+|its\s+|all\s+)?"


def made_by_rows(measures: list[str], model: SemanticModel, question: str, words: dict[str, list[str]]) -> list[str]:
    """`measures` without a count whose rows are said to have made the money measure of the same table that is also
    named: those rows are the scope of the money, not a number asked for."""
    by_id, money = {x.id: x for x in model.measures}, _money_measures(model)
    tables = {by_id[x].table.lower() for x in measures if x in by_id and by_id[x] in money}
    return [x for x in measures if not (x in by_id and by_id[x].agg == "count" and by_id[x].table.lower() in tables
                                        and any(re.search(re.escape(w) + _MADE, question, re.I)
                                                or re.search(_ON_ROWS + re.escape(w), question, re.I) for w in words.get(x, [])))]


_BY_MONEY = r"金额|多少钱|按钱|\b(?:amount|money|value|revenue)\b"  # "改成按金额算", "switch to the amount"


def money_instead(model: SemanticModel, question: str, previous: list[str]) -> list[str]:
    """"改成按金额算" after units sold: the money measure of the same rows (same table and default filter, the first
    declared), in place of a measure that is no money; [] when the question says no such thing."""
    by_id, money = {x.id: x for x in model.measures}, _money_measures(model)
    first = by_id.get(previous[0]) if previous else None
    if first is None or first in money or not re.search(_BY_MONEY, question, re.I):
        return []
    return [x.id for x in money if x.table.lower() == first.table.lower() and x.filter == first.filter][:1]
