"""A number of rows per member, and how a question says it: "超过100单", "more than 100 orders", 退款超过2次 (the
refunds named before the number), 订单超过3笔, 消费次数大于3 and 订单数超过20 (a count word before it), 不止一单,
"more than once", "at least twice"; and the measure such a number counts ("下了超过5个订单": the orders; 卖了超过
500件: the one measure counted in 件). Read by `semantic.members` for bounds on members' totals."""

from __future__ import annotations

import re

from wenshu.semantic.fields import just_before
from wenshu.semantic.model import Record, SemanticModel
from wenshu.semantic.paths import reachable, reaches
from wenshu.semantic.thresholds import Threshold

# units of counting (100单, 300 units); a record's or a count measure's own words after the number count too
_COUNTED = r"(?:单|笔|件|人|个|次|家|天|units?|items?|people|times|days|once|twice)"
# a number of rows named right before the bound ("消费次数大于3", "下单笔数超过5", "the number of orders above 5")
_COUNT_BEFORE = r"(次数|笔数|单数|件数|天数|人数)$|\bnumber of [\w-]+( [\w-]+)?$"


def counts_rows(t: Threshold, model: SemanticModel, question: str) -> bool:
    """"超过100单", "more than 100 orders", "over 300 paid orders": the number counts rows (a unit of
    counting, a record or a count measure after it), it is no row's value."""
    span, after = question[t.start:t.end], question[t.end:t.end + 24].casefold().lstrip()
    counts = [w for x in model.measures if x.agg in ("count", "count_distinct") for w in x.words()]
    rows = [w for e in model.records for w in e.words()]
    counted = rows + counts
    own = {w.casefold().rstrip("s") for w in rows}  # "orders above 3,000 yuan": the rows' own word, not their number
    before = re.sub(r"(的|是|为|\s|\b(is|was|are|were)\b)*$", "", question[:t.start], flags=re.I).casefold()
    if not in_money(t, question) and (re.search(_COUNT_BEFORE, before, re.I) or any(
            before.endswith(w.casefold()) for w in counts if w.casefold().rstrip("s") not in own)):
        return True  # "消费次数大于3", "订单数超过20", "number of orders above 5": a number of rows
    return bool(re.search(rf"{_COUNTED}\s*(及|或)?(以上|以下|以内|之上|或更多|or more|or fewer)?\s*$", span, re.I)
                or re.match(rf"{_COUNTED}(?![a-z]|百分点)", after, re.I) or any(after.startswith(w.casefold()) for w in counted))


def counts_own_rows(t: Threshold, record: Record, model: SemanticModel, question: str) -> bool:
    """Whether the number counts the record's own rows, by its word or a count of them after it ("Who placed more
    than 5 orders", "10 or more paid orders": no order's value)."""
    after = re.sub(r"^\s*(个|笔|张|单)?\s*", "", question[t.end:t.end + 24]).casefold()
    counts = [x for x in model.measures if x.agg == "count" and x.table.lower() == record.table.lower()]
    return any(after.startswith(w.casefold()) for w in [*record.words(), *(w for x in counts for w in x.words())])


def rows_count(t: Threshold, model: SemanticModel, question: str) -> str | None:
    """A number of rows with no measure named ("下了超过5个订单", "下单超过3单", "退款超过2次", "订单超过3笔"): the count
    measure named as the rows it counts (orders: the orders), of the record whose word follows the number or stands
    just before it, else of the record whose counts are in the number's unit."""
    said = question[t.start:t.end + 12].casefold()
    after = re.sub(r"^\s*(个|笔|张)?\s*", "", question[t.end:t.end + 12]).casefold()
    q = question.casefold()

    def named(rec: Record, by_unit: bool) -> str | None:
        counts = [x for x in model.measures if x.agg == "count" and x.table.lower() == rec.table.lower()]
        own = {w.casefold().rstrip("s") for w in rec.words()}
        if by_unit:
            hit = any(x.unit and x.unit in said for x in counts)
        else:
            hit = any(after.startswith(w.casefold()) for w in rec.words()) or any(
                just_before(question, x.end(), t) and not re.search(r"\w", question[x.end():t.start], re.I)
                for w in rec.words() for x in re.finditer(re.escape(w.casefold()), q))
        found = [x.id for x in counts if any(w.casefold().rstrip("s") in own for w in (x.zh, x.en))] if hit else []
        return found[0] if len(found) == 1 else None

    for by_unit in (False, True):  # the record's own word first: 订单超过3笔 counts orders, though 笔 is refunds' unit
        hits = [x for x in (named(rec, by_unit) for rec in model.records) if x]
        if hits:
            return hits[0]
    return None


def in_unit(t: Threshold, model: SemanticModel, question: str, dims: list[str]) -> str | None:
    """The one measure whose unit is the word the number is counted in ("超过500件": units sold), of those the
    dimensions `dims` split."""
    said = re.search(rf"{_COUNTED}\s*\S{{0,3}}$", question[t.start:t.end]) or re.match(_COUNTED, question[t.end:].lstrip())
    reach = reachable(model)
    found = [x.id for x in model.measures if said and x.unit and x.unit == said.group(0).strip()[:len(x.unit)]
             and all(reaches(model, d, {x.table.lower()}, reach) for d in dims)]
    return found[0] if len(found) == 1 else None


def in_money(t: Threshold, question: str) -> bool:
    """Whether the bound is said in money: its own stretch holds a currency (100元, "100 yuan", ¥100)."""
    return bool(re.search(r"元|块|[¥￥$]|\b(yuan|rmb|cny)\b", question[t.start:t.end], re.I))


