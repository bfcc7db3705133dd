"""Bounds on row values in a plan of totals: "实付金额超过5000元的订单有多少单", "GMV from orders over
¥2,000 by region", "how many refunds were above 1,000 yuan".

A "more than N" (`semantic.thresholds`) bounds the rows a measure aggregates when it reads as a row's
value of a record the question names (by its words, or by a count it names: "paid orders" counts order
rows): the record's own word for a field named just before the number ("实付金额超过5000元", "order value
above 5,000"), or, with the record's words next to the bound, a measure's word for that field ("退款金额
超过1000元的退款") or the record's ranking value ("orders over 5,000 yuan": the amount paid). Anything
else bounds a total per member ("cities whose GMV passed a million", "customers who spent over 20,000 in
total", "days with more than 300 orders": a measure's word with no rows beside it, or a number of rows).
A plan holds it (`having`) when the question asks for the members ("哪些城市成交额超过250万", "which
categories sold more than 4,000 units") or how many of them there are ("有多少个城市成交额超过100万"), and
names the measure with the number (`semantic.members`); a list of rows with a bound that no detail list
holds goes to free SQL.

A bound rides in the plan as a Filter whose `dimension` is `table.column` (or a measure id whose row
expression is not one column); it comes from the question's words only, never from the model. Each
measure of the plan applies it to its own rows, so it must be on the bound's table or look it up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wenshu.semantic.fields import just_before, named_fields, target_of
from wenshu.semantic.thresholds import Threshold, thresholds
from wenshu.semantic.listing import names_record
from wenshu.semantic.members import Members, counted_members, listed_members, measure_spots, member_bound, totalled_members
from wenshu.semantic.row_counts import counts_rows
from wenshu.semantic.mentions import Mentions, cue
from wenshu.semantic.model import Record, SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.plan import Filter, QueryPlan

SYMBOL = {"gt": ">", "gte": "≥", "lt": "<", "lte": "≤", "eq": "=", "ne": "≠"}


@dataclass
class Bounds:
    filters: list[Filter] = field(default_factory=list)
    reason: str = ""  # why a bound the question names cannot ride in a plan ("": all can, or there is none)
    spans: list[tuple[int, int]] = field(default_factory=list)  # the fields' words and the numbers they bound
    rows_at: list[tuple[int, int]] = field(default_factory=list)  # the bounded rows' words next to a bound
    having: list[Filter] = field(default_factory=list)  # bounds on a measure's total per member
    members: Members | None = None  # the members whose number the question asks (with `having`)

    def unsaid(self, model: SemanticModel, m: Mentions, measures: list[str], question: str) -> list[str]:
        """The measures without those the question names only as the value it bounds ("实付金额超过5000元
        的订单有多少单" asks a count: 实付金额 is the bounded value) or as the rows it bounds ("GMV from
        orders above 3,000 yuan": "orders" are the rows, not their count, unless a count is asked)."""
        asked = cue("count", re.sub(r"\bhow much\b", " ", question, flags=re.I))  # "how much of the GMV": no count
        counts = {x.id for x in model.measures if x.agg == "count"} if not asked else set()

        spots = measure_spots(m, question)

        def bounding(mid: str) -> bool:
            inside = self.spans + (self.rows_at if mid in counts else [])
            said = [(a, b) for x, a, b in spots if x == mid]
            return bool(said) and all(any(s <= a and b <= e or mid in counts and a <= s and e <= b  # "paid orders of
                                          for s, e in inside) for a, b in said)  # more than 2.5k": the rows bounded

        kept = [x for x in measures if not bounding(x)]
        return kept or measures


def is_bound(model: SemanticModel, f: Filter) -> bool:
    """Whether a plan's filter bounds a row value rather than naming a dimension's values."""
    return f.dimension not in {d.id for d in model.dimensions}


def bound_table(model: SemanticModel, f: Filter) -> str:
    """The table whose rows hold the bounded value."""
    me = next((x for x in model.measures if x.id == f.dimension), None)
    return (me.table if me is not None else f.dimension.partition(".")[0]).lower()


def row_bounds(model: SemanticModel, m: Mentions, question: str, rows: list[Record] | None = None) -> Bounds:
    """The bounds on row values the question names, as plan filters (see the module's docstring); `rows`:
    the records whose rows may be bounded, when the conversation says (a follow-up), else those it names."""
    out, spans, rows_at, having, members = [], [], [], [], None
    said = rows is None  # the rows are the question's to name, not the conversation's
    rows = _records(model, m, question) if rows is None else rows
    fielded = _fielded(model, m, question) if said else rows
    counts = {x.id for x in model.measures if x.agg in ("count", "count_distinct")}
    measured = measure_spots(m, question)
    for t in thresholds(question):
        if _defines(t, model, m):
            continue  # "回头客…就是至少成交两单的": the repeat buyers' own definition, no bound
        hit = _field_before(t, fielded, model, question, measured)
        if hit is None and counts_rows(t, model, question):
            if said and (total := member_bound(t, model, m, question)):
                having.append(total)  # "which products sold more than 300 units"
                continue
            if said and (counted := counted_members(t, model, m, question) or totalled_members(t, model, m, question)):
                having.append(counted[0])  # "how many days had more than 200 paid orders"; "下单超过3次的客户一共
                members = counted[1]  # 贡献了多少GMV": how many customers, and what they add up to
                continue
            return Bounds([], "the question bounds a count per member (more than N rows): free SQL answers")
        if hit is None:
            rec = min(rows, key=lambda r: _distance(r, t, question), default=None)
            target = target_of(t, [], rec, model, question) if rec is not None else None
            hit = (rec, target, t.start, False) if target is not None else None
        if hit is not None:
            near = [(a, b) for a, b in _next_to(hit[0], (hit[2], t.end), question)  # not "order" in "average
                    if not any(x <= a and b <= y and y - x > b - a and mid not in counts  # order value"; a count's
                               for mid, x, y in measured)]  # words name its rows ("paid orders")
            if said and _members_follow(t, model, m, question):  # "退款退了一万二以上的是哪几个城市": the cities' totals,
                near = [(a, b) for a, b in near if a >= t.end]  # unless the rows stand after it (…以上的退款)
            if said and not near and (not hit[3] or _of_members(hit[0], model, m, question)):  # "customers who spent over
                hit = None  # 20,000 in total", "累计实付超过5000元的钻石会员有哪些": not a row
        if hit is None and said and (total := member_bound(t, model, m, question)):
            having.append(total)  # "哪些城市成交额超过250万"
            continue
        if hit is None and said and (counted := counted_members(t, model, m, question)
                                     or totalled_members(t, model, m, question)):
            having.append(counted[0])  # "有多少个城市成交额超过100万"
            members = counted[1]
            continue
        if hit is None:
            return Bounds([], "the question bounds a value of no rows it names (a total per member): free SQL answers")
        rec, target, start, _ = hit
        spans.append((start, t.end))
        rows_at += near
        whole = any(x.id == target and not re.fullmatch(r"\w+", x.expr or "") for x in model.measures)
        ref = target if whole else f"{rec.table}.{target}"  # a measure's row expression, else a column
        out.append(Filter(dimension=ref, op=t.op, values=[t.value]))
    own_rows = {d.table.lower() for d in model.dimensions if d.id in m.dimensions and d.kind != "time"}
    if out and m.listing and not all(bound_table(model, f) in own_rows for f in out):  # not the members' own rows
        return Bounds([], "the question asks to see rows with a bound, and no list of them holds it: free SQL answers")
    return Bounds(out, "", spans, rows_at, having, members)


def _defines(t, model: SemanticModel, m: Mentions) -> bool:
    """Whether the bound restates a named measure's own `at_least` (repeat buyers: two or more paid orders)."""
    return any(x.at_least and x.id in m.measures and (t.op, t.value) in (("gte", x.at_least), ("gt", x.at_least - 1))
               for x in model.measures)


def rebound(previous: QueryPlan, model: SemanticModel, m: Mentions, question: str) -> list[Filter] | None:
    """A follow-up's bounds, or None when it names none: "那超过1000的呢" moves the previous plan's bound to
    the new number; a bound on a field it names, or on rows the previous plan counts, is added."""
    said = thresholds(question)
    if not said:
        return None
    before = [f for f in previous.filters if is_bound(model, f)]
    named, measured = _records(model, m, question), measure_spots(m, question)
    if before and len(said) == len(before) and \
            not any(_field_before(t, named, model, question, measured) for t in said):
        return [f.model_copy(update={"op": t.op, "values": [t.value]}) for f, t in zip(before, said)]
    tables = {r.table.lower() for r in model.records if r.id == previous.records} or \
        {x.table.lower() for x in model.measures if x.id in previous.measures}
    rows = [*named, *(r for r in model.records if r.table.lower() in tables and r not in named)]
    found = row_bounds(model, m, question, rows)
    return None if found.reason else found.filters


def moved_totals(previous: QueryPlan, question: str) -> list[Filter] | None:
    """"那超过300万的呢" after "哪些城市成交额超过250万": the bounds on the members' totals at the new numbers;
    None when the follow-up names no bound or the previous plan has none on totals."""
    said = thresholds(question)
    if not said or not previous.having or len(said) != len(previous.having):
        return None
    return [h.model_copy(update={"op": t.op, "values": [t.value]}) for h, t in zip(previous.having, said)]


def carried(model: SemanticModel, bounds: list[Filter], tables: list[str]) -> str:
    """Why the measures on `tables` cannot apply the bounds to their rows ("": they all can)."""
    lookups = reachable(model)
    for f in bounds:
        owner = bound_table(model, f)
        for t in tables:
            if t.lower() != owner and owner not in lookups.get(t.lower(), set()):
                return f"the question bounds a value of {owner} rows, which the rows of {t} do not carry"
    return ""


def bound_name(model: SemanticModel, ref: str, lang: str) -> str:
    """A bounded value's name in the user's language: the record's word for the column (实付金额, amount paid),
    or the measure's name when the record's word is only part of it (金额 in 退款金额)."""
    me = next((x for x in model.measures if x.id == ref), None)
    table, _, column = ref.rpartition(".")
    if me is None:
        me = next((x for x in model.measures if x.expr == column and x.table.lower() == table.lower()
                   and x.agg not in ("count", "count_distinct")), None)
    measure = None if me is None else (me.zh if lang == "zh" else me.en)
    rec = next((r for r in model.records if r.table.lower() == table.lower()), None)
    words = [w for w in (rec.fields.get(column, []) if rec else []) if w.isascii() == (lang != "zh")]
    if words and not (measure and words[0].casefold() in measure.casefold()):
        return words[0]
    return measure or column.replace("_", " ")


def _members_follow(t, model: SemanticModel, m: Mentions, question: str) -> bool:
    """Whether the members a split asks for stand right after the bound ("…一万二以上的是哪几个城市", "…以上的城市"):
    what passes is each member's total."""
    rest = re.sub(r"^\s*的\s*(是|有)?\s*(哪些|哪几个|哪几家|哪个)?\s*", "", question[t.end:t.end + 16]).casefold()
    if rest == question[t.end:t.end + 16].casefold():
        return False
    kinds = {d.id: d.kind for d in model.dimensions}
    return any(kinds.get(d) == "category" and any(rest.startswith(w.casefold()) for w in m.dimension_words.get(d, []))
               for d in m.split)


def _of_members(rec: Record, model: SemanticModel, m: Mentions, question: str) -> bool:
    """Whether the question lists members of a keyed dimension on another table than the bounded rows' (the
    customers, by their orders' amount paid)."""
    keyed = listed_members(model, m, question)
    return keyed is not None and next(d for d in model.dimensions if d.id == keyed).table.lower() != rec.table.lower()


def _records(model: SemanticModel, m: Mentions, question: str) -> list[Record]:
    """The records whose rows the question names: by their own words, or by a count measure it names, also
    as a ratio's denominator ("paid orders over 5,000 yuan" counts order rows; AOV is per order)."""
    parts = [*m.measures, *m.measure_words, *(r.denominator for r in model.ratios if r.id in m.measures)]  # AOV: per
    # order; a count said as the rows another measure is of ("GMV by region from orders above 3,000") names them too
    counted = {x.table.lower() for x in model.measures if x.id in parts and x.agg == "count"}
    return [r for r in model.records if names_record(r, m, model, question) or r.table.lower() in counted]


def _fielded(model: SemanticModel, m: Mentions, question: str) -> list[Record]:
    """The records a field's word may belong to: those named, and those of the measures named ("实付超过2000
    元的大单，成交额多少": the orders' amount paid; "购买数量不少于3件 … 卖了多少件": the order lines' quantity)."""
    tables = {x.table.lower() for x in model.measures if x.id in m.measures}  # and the members' own rows
    tables |= {d.table.lower() for d in model.dimensions if d.id in m.dimensions and d.kind != "time"}  # (标价: products')
    named = _records(model, m, question)
    return named + [r for r in model.records if r.table.lower() in tables and r not in named]


def _field_before(t: Threshold, rows: list[Record], model: SemanticModel, question: str,
                  measured: list[tuple[str, int, int]] = ()) -> tuple | None:
    """(record, field, where its word starts, whether the word is the record's own for the field) for the
    field named right before the number ("实付金额超过…"), the nearest first. A record's own word (实付金额,
    order value) names a row's value; a measure's word (销售额, spent) names a total unless the rows stand
    next to the bound ("退款金额超过1000元的退款")."""
    best: tuple | None = None
    for rec in rows:
        named = [x for x in named_fields(model, rec, question) if just_before(question, x[2], t)
                 and not any(a <= x[1] and x[2] <= b and b - a > x[2] - x[1] for _, a, b in measured)]
        target = target_of(t, named, rec, model, question) if named else None
        if target is not None and target in {f for f, _, _ in named}:  # not the record's ranking value
            start, end = max((s, e) for f, s, e in named if f == target)
            own = {w.casefold() for w in [*rec.fields.get(target, []), target.replace("_", " ")]}
            if best is None or end > best[0]:
                best = (end, rec, target, start, question[start:end].casefold() in own)
    return None if best is None else best[1:]


def _record_spots(rec: Record, question: str) -> list[tuple[int, int]]:
    """Where the question says one of the record's words, singular or plural."""
    q = question.casefold()
    return [(x.start(), x.end()) for w in rec.words() for x in re.finditer(re.escape(w.casefold().rstrip("s")) + "s?", q)]


def _next_to(rec: Record, span: tuple[int, int], question: str) -> list[tuple[int, int]]:
    """Where the record's words stand right before or after a bound ("orders above 3,000", "5000元的订单")."""
    start, end = span
    return [(a, b) for a, b in _record_spots(rec, question) if 0 <= start - b <= 12 or 0 <= a - end <= 8]


def _distance(rec: Record, t: Threshold, question: str) -> int:
    return min((abs(a - t.start) for a, _ in _record_spots(rec, question)), default=len(question))
