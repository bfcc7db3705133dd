"""Bounds on a measure's total per member, and counts of the members that pass one.

"哪些城市成交额超过250万", "which categories sold more than 4,000 units": the question asks for the members
(a split, 哪些 / which) and the plan keeps those whose total passes (`QueryPlan.having`).
"有多少个城市成交额超过100万", "上个月累计实付超过5000元的客户有多少位", "how many days had more than 200 paid
orders": the question counts them (`QueryPlan.count_members`): the members are the dimension a count word
stands before (多少个城市, how many customers) or right after (客户有多少位), or days (有几天, how many days:
the days of a daily trend).

The bounded measure is the one named just before the number ("成交额超过250万") or right after it ("more
than 4,000 units", "three or more paid orders"); else, for a count of members, the measure that sums a
record's field named just before the number (累计实付超过5000元: the amount paid, summed per customer); else
the only measure named. Nothing here is written for a particular question: the words are the model's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wenshu.semantic.distinct import keyed_counts
from wenshu.semantic.fields import just_before, named_fields
from wenshu.semantic.cues import SPLIT_BEFORE
from wenshu.semantic.mentions import Mentions, cue
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import Filter
from wenshu.semantic.ratios import MONEY_UNITS
from wenshu.semantic.row_counts import counts_rows, in_money, in_unit, rows_count
from wenshu.semantic.thresholds import Threshold, thresholds

# a count of days ("有几天", "多少天", "how many days"): the members are the days of a daily trend
_DAYS = r"(?<![这近前后过去])(几|多少)(个)?(天|日子)|\bhow many (different |separate )?days\b|\bnumber of days\b"
# a count word right after a member's name ("客户有多少位", "城市一共有几个")
_COUNT_AFTER = r"^\s*(的)?\s*(一共|总共|共)?\s*(有)?\s*(多少|几)|^\s*的?\s*总?(数量|个数|人数|数)(?!据|字|值)"


@dataclass(frozen=True)
class Members:
    """The members a count of members counts: a dimension's, or the periods of a trend (`grain`)."""
    dimension: str | None = None
    grain: str | None = None


def measure_spots(m: Mentions, question: str) -> list[tuple[str, int, int]]:
    """(measure id, start, end) of each word that names a measure in the question."""
    q = question.casefold()
    return [(mid, x.start(), x.end()) for mid, words in m.measure_words.items() for w in words
            for x in re.finditer(re.escape(w.casefold()), q)]


def member_bound(t: Threshold, model: SemanticModel, m: Mentions, question: str) -> Filter | None:
    """A bound on a measure's total per member, when the members are asked for ("which cities", "各品牌", not
    "how many customers", which counts them: `counted_members`)."""
    if not (m.split or m.dimensions or listed_members(model, m, question)) or m.counted \
            or cue("count", question) and not cue("list", question) and not cue("each", question) \
            or _counted(model, m, question) is not None:  # 各贡献了多少: each; "…的客户数": counted
        return None
    mid = _named(t, m, question, model) or _headline(t, model, question) or rows_count(t, model, question) \
        or in_unit(t, model, question, [*m.split, *m.dimensions]) \
        or _record_total(t, model, question)  # "卖了超过500件": the one measure counted in 件; "退款退了一万二以上": refunded
    if mid and counts_rows(t, model, question) and not _is_count(model, mid):  # 退款超过2笔: the refunds, not the
        unit = in_unit(t, model, question, [*m.split, *m.dimensions])  # money refunded (超过300件, "4,000 units":
        said = unit == mid or any(x == mid and t.start <= a <= t.end + 2 for x, a, _ in measure_spots(m, question))
        mid = rows_count(t, model, question) or (mid if said else None)  # units sold; 下单超过3次…各贡献了多少GMV: orders)
    keyed = [d for d in dict.fromkeys([*m.split, listed_members(model, m, question)]) if d and keyed_counts(model, d)]
    if len(keyed) == 1 and (mid or counts_rows(t, model, question)):  # "哪些客户下单超过3次": their orders
        mid = per_member(model, mid or _first_key_count(model, keyed[0]), keyed[0])
    if mid and in_money(t, question) and not _money_measure(model, mid):
        return None  # "products under 100 yuan … sold the most units": a price, not a bound on units sold
    return Filter(dimension=mid, op=t.op, values=[t.value]) if mid else None


def listed_members(model: SemanticModel, m: Mentions, question: str = "") -> str | None:
    """The keyed dimension whose members a list asks for ("which customers spent over 3,000 yuan", "list the
    customers with more than 2 paid orders"), or whose table holds the only values a list names when it names
    no dimension ("累计实付超过5000元的钻石会员有哪些": the level is the customers', so the customers), or the model's
    only keyed dimension when it asks who ("who spent more than 5,000 yuan last month")."""
    if not m.listing:
        return None
    dims = {d.id: d for d in model.dimensions}
    keyed = [d for d in m.dimensions if d in dims and dims[d].key]
    if keyed:
        return keyed[0] if len(keyed) == 1 else None
    tables = {dims[d].table.lower() for d in m.values if d in dims and dims[d].kind != "time"}
    found = [d.id for d in model.dimensions if d.key and (d.table.lower() in tables or not tables and cue("who", question))]
    return found[0] if len(tables) <= 1 and len(found) == 1 else None  # "who spent over 5,000": the one kind of member


def _headline(t: Threshold, model: SemanticModel, question: str) -> str | None:
    """A bound said in money with no measure named ("spent over 3,000 yuan"): the model's headline measure, when it
    is an amount of money."""
    head = next((e for e in [*model.measures, *model.ratios] if e.id == model.headline), None)
    if head is None or not head.unit or head.unit.casefold() not in MONEY_UNITS or not in_money(t, question):
        return None
    dims = {d.id for d in model.dimensions}
    if any(just_before(question, e, t) for rec in model.records for f, _, e in named_fields(model, rec, question)
           if f not in dims):
        return None  # "标价低于500元的商品": a field's value, not what anyone spent
    return head.id


def _record_total(t: Threshold, model: SemanticModel, question: str) -> str | None:
    """A record named just before the bound, with no field ("退款退了一万二以上的是哪几个城市"): the sum of the value it
    is ranked by (refunds: the amount refunded), per member."""
    q = question.casefold()
    sums = {x.id for x in model.measures if x.agg == "sum"}
    found = {r.rank_by for r in model.records if r.rank_by in sums and any(
        just_before(question, x.end(), t) for w in r.words() for x in re.finditer(re.escape(w.casefold()), q))}
    return found.pop() if len(found) == 1 else None


def _is_count(model: SemanticModel, mid: str) -> bool:
    return any(x.id == mid and x.agg in ("count", "count_distinct") for x in model.measures)


def _money_measure(model: SemanticModel, mid: str) -> bool:
    entry = next((e for e in [*model.measures, *model.ratios] if e.id == mid), None)
    return entry is None or not entry.unit or entry.unit.casefold() in MONEY_UNITS  # no unit declared: not known


def counted_members(t: Threshold, model: SemanticModel, m: Mentions, question: str) -> tuple[Filter, Members] | None:
    """The bound on each member's total and the members whose number the question asks ("有多少个城市成交额
    超过100万"); None when it counts no members or names no measure for the bound."""
    members, rows = _counted(model, m, question), counts_rows(t, model, question)
    if members is None and rows:  # "有多少个客户下单超过3次", "how many people bought through the app two or more times"
        members = _keyed_members(model, m, question)
    money = len(m.measures) == 1 and _money_measure(model, m.measures[0]) and not in_money(t, question)
    mid = (_named(t, m, question, model, only=not (rows and money)) or (rows_count(t, model, question) if rows else None)) \
        if members else None  # "只买过一次的客户…一共花了多少": a number of rows bounds no money named elsewhere
    if members and members.dimension and (mid or rows):  # "几位客户买了两次或以上": the
        mid = per_member(model, mid or _first_key_count(model, members.dimension), members.dimension)  # orders
    if members and not mid:
        mid = in_unit(t, model, question, [members.dimension] if members.dimension else [])
    return (Filter(dimension=mid, op=t.op, values=[t.value]), members) if mid else None


def totalled_members(t: Threshold, model: SemanticModel, m: Mentions, question: str) -> tuple[Filter, Members] | None:
    """The bound on each member's total and the members it keeps, when the question asks what they add up to rather
    than who they are: "上个月下单超过3次的客户一共贡献了多少GMV", "下单次数超过2次的客户，平均客单价是多少",
    "customers with more than 3 orders: their total GMV" (a measure other than the bounded one, and no list, split
    or "each" of the members). The members are the one keyed dimension named; a number of rows bounds
    their row count (`per_member`), else the bound is on the measure or the summed field named just before it."""
    if m.listing or cue("list", question) or cue("each", question):
        return None
    keyed = [d for d in dict.fromkeys(m.dimensions) if keyed_counts(model, d)]
    if len(keyed) != 1 or _split_before(keyed[0], m, question):
        return None
    if counts_rows(t, model, question):
        mid = per_member(model, rows_count(t, model, question) or _first_key_count(model, keyed[0]), keyed[0])
    else:
        spots = measure_spots(m, question)
        before = sorted((e, x) for x, _, e in spots if just_before(question, e, t))
        mid = before[-1][1] if before else _summed_field(t, model, question) or _headline(t, model, question)
    if not mid or not [x for x in m.measures if x != mid]:  # "customers who spent over 20,000 yuan in total": who
        return None
    return Filter(dimension=mid, op=t.op, values=[t.value]), Members(dimension=keyed[0])


def _split_before(did: str, m: Mentions, question: str) -> bool:
    """Whether a split word stands before the member's name (各客户, 每个客户, by customer, per customer)."""
    q = question.casefold()
    return any(SPLIT_BEFORE.search(question[:x.start()]) for w in m.dimension_words.get(did, [])
               for x in re.finditer(re.escape(w.casefold()), q))


def _counted(model: SemanticModel, m: Mentions, question: str) -> Members | None:
    if m.split:
        return None
    if re.search(_DAYS, question, re.I):
        return Members(grain="day")
    kinds = {d.id: d.kind for d in model.dimensions}
    q = question.casefold()
    after = [d for d in m.dimensions if kinds.get(d) == "category" and any(
        re.match(_COUNT_AFTER, q[x.end():]) for w in m.dimension_words.get(d, [])
        for x in re.finditer(re.escape(w.casefold()), q))]
    if not cue("count", question) and not after:  # "…的客户数": a count word of its own
        return None
    counted = [d for d in m.counted if kinds.get(d) == "category"]
    found = counted or after
    return Members(dimension=found[0]) if found else None


def _keyed_members(model: SemanticModel, m: Mentions, question: str) -> Members | None:
    """The members a count of distinct keys counts, when the question bounds their rows: the dimension whose keys the
    named one counts (多少个客户下单: buyers, by customer), else, when it asks how many people, the model's one dimension
    that such a count looks up."""
    keyed = [d.id for d in model.dimensions if d.key and keyed_counts(model, d.id)]
    named = [d for d in keyed if any(x.id in m.measures for x in keyed_counts(model, d))]
    found = named or (keyed if cue("people", question) else [])
    return Members(dimension=found[0]) if len(found) == 1 else None


def _first_key_count(model: SemanticModel, did: str) -> str | None:
    first = keyed_counts(model, did)[:1]
    return first[0].id if first else None


def in_asked_order(model: SemanticModel, m: Mentions, question: str, measures: list[str]) -> list[str]:
    """Measures of a list kept on a bound, in the order the question asks for them after the bound ("退款超过2笔的客户
    有哪些？笔数和退了多少钱都要": the count, then the money; "…一万二以上的是哪几个城市？列出城市、退了几笔、退了多少钱"):
    a measure's word, or for a count its unit asked (几笔, 多少单, 笔数); one not asked there keeps its place after."""
    ends = [t.end for t in thresholds(question)]
    end = max(ends) if ends else 0
    spots = measure_spots(m, question)
    units = {x.id: x.unit for x in model.measures if x.agg == "count" and x.unit}

    def at(mid: str) -> int:
        said = [a for x, a, _ in spots if x == mid and a >= end]
        if not said and mid in units:
            said = [end + x.start() for x in re.finditer(rf"(几|多少)\s*{units[mid]}|{units[mid]}数", question[end:])]
        return min(said, default=len(question))

    return sorted(measures, key=at)


def counts_keys_of(model: SemanticModel, measures: list[str], did: str) -> bool:
    """Whether every measure counts the keys of keyed dimension `did` (buyers, repeat buyers: customers), or is an
    average per such a count (spend per buyer), so a split by it is one or none each: the customers are the whole such
    a count is taken of, or the average is over (by gender it still splits)."""
    dim = next((d for d in model.dimensions if d.id == did), None)
    keys = {(x.table, x.expr) for x in keyed_counts(model, did)} if dim is not None and dim.key else set()
    per = {r.id: r.denominator for r in model.ratios}
    counted = [per.get(mid, mid) for mid in measures]
    return bool(keys) and all((x.table, x.expr) in keys for x in model.measures if x.id in counted) \
        and all(any(x.id == mid for x in model.measures) for mid in counted)


def per_member(model: SemanticModel, mid: str, did: str) -> str:
    """A bound on a count of the members' own keys (buyers per customer: one each) is a bound on the rows it counts:
    the row count of the same table with the same default filter (paid orders)."""
    me = next((x for x in keyed_counts(model, did) if x.id == mid), None)
    twin = next((x for x in model.measures if me is not None and x.agg == "count"
                 and x.table.lower() == me.table.lower() and x.filter == me.filter), None)
    return twin.id if twin is not None else mid


def _named(t: Threshold, m: Mentions, question: str, model: SemanticModel | None = None, only: bool = True) -> str | None:
    """The measure a bound on a total is on: named just before the number or right after it; with `model`, else
    the sum of a record's field named just before it; else (`only`) the only one named."""
    spots = measure_spots(m, question)
    before = sorted((e, mid) for mid, _, e in spots if just_before(question, e, t))
    after = sorted((s, mid) for mid, s, _ in spots if 0 <= s - t.end <= 10 and not re.search(r"[，。？！,.?!;；]", question[t.end:s]))
    if before or after:
        return before[-1][1] if before else after[0][1]
    summed = _summed_field(t, model, question) if model is not None else None
    return summed or (m.measures[0] if len(m.measures) == 1 and only else None)


def _summed_field(t: Threshold, model: SemanticModel, question: str) -> str | None:
    """"累计实付超过5000元": the measure that sums the field named just before the number (the amount paid);
    not when a row stands right after the number ("下过实付超过1000元的单": one order's amount, counted in 单,
    the unit of a count of that record's rows)."""
    after = re.sub(r"^\s*的?\s*", "", question[t.end:t.end + 12]).casefold()
    best: tuple[int, str] | None = None
    for rec in model.records:
        units = {x.unit for x in model.measures if x.agg == "count" and x.unit and x.table.lower() == rec.table.lower()}
        if any(after.startswith(w.casefold()) for w in [*units, *rec.words()]):
            continue
        for column, _, end in named_fields(model, rec, question):
            me = next((x for x in model.measures if x.agg == "sum" and x.expr == column
                       and x.table.lower() == rec.table.lower()), None)
            if me is not None and just_before(question, end, t) and (best is None or end > best[0]):
                best = (end, me.id)
    return best[1] if best else None
