"""Detail lists read from the question: which record's rows, which of their fields, bounded how.

A question that asks to see rows ("昨天有哪些订单被取消了", "the 10 largest refunds", "paid orders over
8,000 yuan: order id, customer name and amount paid") becomes a list plan with no model call: the record
it names, or the rows a named count measure counts; named measures on the record's table add their
default filter and may rank it by their row value; the fields it names are the columns, and "more than
N" bounds a row's value (`semantic.fields`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from wenshu.semantic.counting import own_filter
from wenshu.semantic.fields import list_columns, lookups_aside, named_fields, ranked_field, said_in_fields, target_of
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.phrasing import backed, in_time_order, newest_rows, spans as phrasing_spans
from wenshu.semantic.labels import label_words
from wenshu.semantic.members import member_bound, totalled_members
from wenshu.semantic.row_counts import counts_own_rows
from wenshu.semantic.mentions import Mentions, blank, cue, oriented, verbs
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import apart, negated_act
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.paths import reachable, value_filters
from wenshu.semantic.plan import Filter, QueryPlan


@dataclass
class Listed:
    plan: QueryPlan | None  # None: a list was asked for but cannot be made as asked
    reason: str = ""


def detail(model: SemanticModel, m: Mentions, question: str = "") -> Listed | None:
    """A detail list when the question asks to see records ("昨天有哪些订单被取消了", "the 10 largest
    refunds", "paid orders over 8,000 yuan: order id, customer name and amount paid"): the record it
    names, or the rows a named count measure counts ("which cancelled orders"); named measures on the
    record's table add their default filter, and rank it by their row value. The fields the question
    names are the list's columns, and "more than N" bounds a row's value (`semantic.fields`).
    None when the question does not ask for rows; a Listed without a plan when the list cannot be
    made as asked (a value nothing filters it by, a rank with nothing to rank by, a bound on nothing)."""
    if m.grain or m.share or m.compare != "none" or {r.id for r in model.ratios} & set(m.measures):
        return None  # a ratio has no value per row: "the average spend per order" is no list of orders
    measures = {x.id: x for x in model.measures}
    counted = [measures[x].table for x in m.measures if x in measures and measures[x].agg == "count"]
    said = lookups_aside(model, [r for r in model.records if names_record(r, m, model, question) or _shared(r, m)
                                 or _shared(r, m, dims=True, question=question)], question)
    fielded = _by_fields(model, question, 3) if question else None  # "发往华南的订单里…退了款的，要订单号、退款时间和退款金额":
    if fielded is not None and fielded not in said and _says_itself(fielded, model, question):  # three of the refunds'
        said.append(fielded)  # own fields, two of them by words that say 退款
    record = _head(said, model, question) or \
        next((r for r in model.records if r.table in counted), None) or \
        (_by_fields(model, question, 2) if question and (m.listing or not m.measures) else fielded) or \
        (_valued(model, m) if m.listing and not m.measures and not m.split else None)
    if record is None or [d for d in m.split if not _own_name(d, record, model, m)]:
        return None
    acted = [measures[x].table for x in apart(model, question, [], asked=False) if measures[x].table != record.table]
    if acted and any(member_bound(t, model, m, question) or totalled_members(t, model, m, question)
                     for t in thresholds(question)):  # "下单3次以上的客户有哪些", "…的客户一共贡献了多少": their orders
        return None  # counted and bounded per customer (`semantic.members`)
    if acted or negated_act(model, question):  # "上个月(没)下单的客户有哪些": by their orders, no filter of customers
        return Listed(None, f"a list of {record.id} picked by rows of {acted[0] if acted else 'another table'}")
    named = [x for x in named_fields(model, record, question) if not _not_a_field(x, record, model, m, question)] \
        if question else []
    named = [x for i, x in enumerate(named)  # "buyer's name", "客户的姓名": the name, not also the buyer
             if not (i + 1 < len(named) and re.fullmatch(r"\s*(的|'s|’s)\s*", question[x[2]:named[i + 1][1]]))]
    named = [x for i, x in enumerate(named) if not _names_its_value(x, named[i + 1:], model, m, question)]
    m = replace(m, values=said_in_fields(model, m.values, named, question))  # "the date refunded": a field alone
    ordered = phrasing_spans(question)  # "sorted by refund date": where a field orders the list, not where it is shown
    shown = [x for x in named if not any(a <= x[1] and x[2] <= b for a, b in ordered)]
    if len({f for f, _, _ in shown}) < 2:  # "按时间倒序，要订单号和金额": the order's field is not shown
        shown += [x for x in named if x[0] not in {f for f, _, _ in shown}]
    last = {f: s for f, s, _ in shown}  # a field named twice ("退款金额超过1000元 … 列出退款金额") is listed where it is last
    fields = sorted(last, key=last.get)
    if fields and record.columns[0] not in fields and cue("attributes", question):
        fields.insert(0, record.columns[0])  # "products with their brand and price": each product by its name
    newest = newest_rows(question) if record.order else None  # "the 5 latest refunds": the five newest rows
    counts = cue("count", blank(question, [(s, e) for _, s, e in named]))  # "order total" is a field, no count
    plain = not m.measures and not m.split and not counts and names_record(record, m, model, question)
    # "show me refunds over 2,000 last week, biggest first", "refunds … newest first", "show me today's cancelled
    # orders": the rows a bound, an order in time or a verb of showing names, nothing summed or counted
    shown = cue("show", question) and bool(m.measures)  # the rows the counts named count
    bounded = bool(thresholds(question) or record.time and in_time_order(question) or shown) \
        and not m.split and not counts \
        and (names_record(record, m, model, question) or _shared(record, m) or shown) \
        and all(x in measures and measures[x].agg == "count" and measures[x].table == record.table for x in m.measures)
    foreign = [x for x in m.measures if x not in measures or measures[x].table.lower() != record.table.lower()]
    summed = [x for x in foreign if x in measures and measures[x].agg != "count"]  # "GMV from customers in tier-1
    asked = m.listing or cue("show", question)  # cities": a total, no customer rows
    fielded = len(fields) >= 2 and not counts and not (summed and not asked)
    if not (m.listing or m.rank and (m.limit or len(fields) >= 3) or newest or fielded or plain or bounded):
        return None  # ("华南区的退款记录发我一下": the records named, nothing measured, are listed: `plain`)
    own = [x for x in m.measures if x in measures and measures[x].table.lower() == record.table.lower()
           and not _shared(record, m, x)]  # "orders" names the records here, not the paid-orders count
    own = _shown_only(model, record, own, fields, m)
    valued = [x for x in own if measures[x].agg != "count" and measures[x].expr]
    if m.split and foreign:  # "which products sold the most units": a measure by product, not product rows
        return None
    # "the 5 latest refunds" (最新的5笔) rank by time unless a value is named, other than as a column to show
    # ("最近20笔退款，要订单号、退款时间、退款金额": the amount is listed, the newest come first)
    ranked_by_said = any(measures[x].expr not in fields or len(fields) < 2 for x in valued)
    filters = value_filters(model, m, own, {record.table.lower()}) | _counted_rows(model, record, foreign, m)
    own_value = record.value if _uncovered(model, record, filters) else None  # unpaid orders: no amount paid
    # one field is enough where the record has no value of its own to rank by ("价格最高的10个商品": by price)
    alone = not record.value and record.rank_by not in measures
    by_field = ranked_field(model, record, fields, question) if m.rank and not valued and (len(fields) >= 2 or alone) else None
    by_field = by_field or (own_value if m.rank and not valued else None)
    if not valued and record.rank_by in measures and not foreign and not by_field:  # "the 5 largest orders": the record's own value
        valued = [record.rank_by]  # (a column rank_by only bounds: "products under 50 yuan" is by their price)
    bounds = []
    for t in thresholds(question):
        target = target_of(t, named, record, model, question, own_value)
        if (target is None or counts_own_rows(t, record, model, question)) and member_bound(t, model, m, question) is not None:
            return None  # "which customers spent over 3,000 yuan": a total per member (`semantic.members`)
        if target is None:
            return Listed(None, f"the question bounds a value that {record.id} rows do not have")
        bounds.append(Filter(dimension=target, op=t.op, values=[t.value]))
    if m.rank and not valued and not by_field and bounds and "." not in bounds[0].dimension:
        by_field = bounds[0].dimension  # "products under 100 yuan, cheapest first": by the price it bounds
    if m.rank and not valued and not by_field:
        if foreign or backed(model, question):  # "top 5 customers and how much each paid", 哪几位客户花得最多:
            return None  # a measure by customer, not customer rows
        return Listed(None, f"a list of {record.id} ranked by nothing the semantic model measures per row")
    kept = {c.id for did in filters for c in model.conformed(did)}  # "App": the orders' channel, not the traffic's
    lost = [d for d in m.values if d not in kept and next(x for x in model.dimensions if x.id == d).kind != "time"]
    if lost:
        return Listed(None, f"the question names a value of {lost[0]}, which {record.id} cannot be filtered by")
    order_by, order = (valued[0], oriented(m, model, valued[0])) if m.rank and valued else \
        (by_field, m.order) if by_field else (None, None)
    if not m.rank and bounds:  # "orders over 5,000 yuan": the largest first; "under 50 yuan": the cheapest
        order_by, order = bounds[0].dimension, "desc" if bounds[0].op in ("gt", "gte") else "asc"
    limit = m.limit if m.rank else None
    if (record.time or record.order) and (by_time := in_time_order(question)):  # "most recent first" says the order
        order_by, order = record.time or record.order, by_time  # itself: by the record's time (its `order` breaks ties)
    if newest and not ranked_by_said:
        (limit, order), order_by = newest, record.order
    return Listed(QueryPlan(
        records=record.id, measures=own, columns=list_columns(record, fields, min(last.values(), default=0), question,
                                                              by_field if alone else None),
        filters=[Filter(dimension=d, op="not_in" if d in m.excluded else "in", values=v) for d, v in filters.items()] + bounds,
        order_by=order_by, order=order, limit=limit, via=m.via))


def _valued(model: SemanticModel, m: Mentions):
    """The record whose own columns hold every value a list names, when no record is named ("钻石会员名单": the
    level is the customers'); None when the values are on several tables or none."""
    dims = {d.id: d for d in model.dimensions}
    tables = {dims[d].table.lower() for d in m.values if d in dims and dims[d].kind != "time"}
    found = [r for r in model.records if len(tables) == 1 and r.table.lower() in tables]
    return found[0] if len(found) == 1 else None


def _shown_only(model: SemanticModel, record, own: list[str], fields: list[str], m: Mentions) -> list[str]:
    """`own` without the sums named only as a column to show whose default filter another named measure or value
    overrides ("cancelled orders …: order id, time and order value": the order value is shown, and keeps no paid
    orders only)."""
    by_id = {x.id: x for x in model.measures}
    dims = {d.id: d for d in model.dimensions}
    pinned = {c for x in own if by_id[x].agg == "count" for c in (own_filter(by_id[x]) or {})} | \
        {dims[d].column.lower() for d in m.values if d in dims and dims[d].table.lower() == record.table.lower()}
    return [x for x in own if not (by_id[x].agg != "count" and by_id[x].expr in fields
                                   and set(own_filter(by_id[x]) or {}) & pinned)]


def _counted_rows(model: SemanticModel, record, foreign: list[str], m: Mentions) -> dict[str, list[str]]:
    """The rows a count on a table the record's rows look up keeps, as filters ("line items … from orders that
    ended up refunded": the refunded orders' lines, status 3), unless the question names that dimension's values."""
    near = reachable(model).get(record.table.lower(), set())
    out: dict[str, list[str]] = {}
    plain = {w.casefold().rstrip("s") for r in model.records for w in r.words()}  # "order" names rows, not paid ones
    for me in (x for x in model.measures if x.id in foreign and x.agg == "count" and x.table.lower() in near
               and any(w.casefold().rstrip("s") not in plain for w in m.measure_words.get(x.id, []))):
        for column, codes in (own_filter(me) or {}).items():
            d = next((d for d in model.dimensions if d.table.lower() == me.table.lower() and d.column.lower() == column), None)
            if d is not None and d.id not in m.values:
                out.setdefault(d.id, sorted(codes))
    return out


def _head(said: list, model: SemanticModel, question: str):
    """Of the records the question names, the one more of whose own fields it names ("那些订单的退款明细：退款时间、
    订单号、退款金额": the refunds; "退货的订单，要订单号、退款金额": the refunds too), else the one it names first."""
    if not said:
        return None
    own = {r.id: len({f for f, _, _ in named_fields(model, r, question) if _own_field(f, r, model)}) for r in said}
    return min(said, key=lambda r: (-own[r.id], _first(r, question)))


def _by_fields(model: SemanticModel, question: str, at_least: int = 2):
    """The one record `at_least` of whose own fields the question names, when it names no record ("上周新注册的
    钻石会员都有谁，给我姓名、性别和注册日期": the customers' name, gender and registration date; three when it names
    a measure too: "…退的款，给我订单号、退款时间和退款金额")."""
    own = {r.id: [f for f, _, _ in named_fields(model, r, question) if _own_field(f, r, model)] for r in model.records}
    best = sorted(model.records, key=lambda r: -len(set(own[r.id])))
    counts = [len(set(own[r.id])) for r in best]
    return best[0] if counts and counts[0] >= at_least and (len(counts) == 1 or counts[1] < counts[0]) else None


def _says_itself(record, model: SemanticModel, question: str) -> bool:
    """Whether two of the fields the question names are said with the record's own word inside (退款时间, 退款金额)."""
    words = [w.casefold() for w in record.words() if len(w) > 1]
    said = {f for f, s, e in named_fields(model, record, question) if any(w in question[s:e].casefold() for w in words)}
    return len(said) >= 2


def _own_field(f: str, record, model: SemanticModel) -> bool:
    """A column of the record's own table, or a dimension on it (not a field its rows look up elsewhere)."""
    if "." in f:
        return False
    d = next((x for x in model.dimensions if x.id == f), None)
    return d.table.lower() == record.table.lower() if d is not None else True


def _uncovered(model: SemanticModel, record, filters: dict[str, list[str]]) -> bool:
    """Whether the list keeps only rows its ranking measure's own filter leaves out (unpaid or cancelled orders,
    where GMV counts paid ones): their amount is then the record's `value`, not the measure's column."""
    ranked = next((x for x in model.measures if x.id == record.rank_by), None)
    kept = own_filter(ranked) if ranked is not None else None
    dims = {d.id: d for d in model.dimensions}
    return bool(kept) and any(did in dims and dims[did].table.lower() == record.table.lower()
                              and dims[did].column.lower() in kept and not set(values) & kept[dims[did].column.lower()]
                              for did, values in filters.items())


def _not_a_field(hit: tuple[str, int, int], record, model: SemanticModel, m: Mentions, question: str) -> bool:
    """A word that names the record itself ("products", or the dimension its rows are: 会员 in a list of
    customers), or a dimension right after one of its own values ("the beauty & personal care category": a
    filter), is not a field the list shows."""
    f, s, e = hit
    if question[s:e].casefold().rstrip("s") in {w.casefold().rstrip("s") for w in record.words()} \
            or _inside_record(s, e, record, question):
        return True
    d = next((x for x in model.dimensions if x.id == f), None)
    if d is not None and d.table.lower() == record.table.lower() and record.columns and d.column == record.columns[0] \
            and question[s:e].casefold() in {w.casefold() for w in d.words()}:
        return True  # "钻石会员都有谁": 会员 names the customers listed, not their name as a field (姓名 does)
    if d is None or f not in m.values:
        return False
    before = question[:s].rstrip().casefold()
    said = [w for ws in label_words(d).values() for w in ws] + [str(v) for v in m.values[f]]  # "小米 brand": a stored value
    return any(before.endswith(w.casefold()) for w in said)


def _names_its_value(hit: tuple[str, int, int], rest: list, model: SemanticModel, m: Mentions, question: str) -> bool:
    """"refunds where the reason was 商品破损: order ID, …": a dimension followed by its one value, before the
    fields listed, filters the rows; a column holding one value is not shown."""
    f, _, e = hit
    d = next((x for x in model.dimensions if x.id == f), None)
    if d is None or len(m.values.get(f, [])) != 1:
        return False
    code = m.values[f][0]
    gap = question[e:rest[0][1] if rest else len(question)].casefold()
    return any(w.casefold() in gap for w in [code, *label_words(d).get(code, [])])


def _own_name(did: str, record, model: SemanticModel, m: Mentions) -> bool:
    """Whether a split dimension is the record's own name ("which products …": the products themselves)."""
    d = next(x for x in model.dimensions if x.id == did)
    own = {w.casefold().rstrip("s") for w in record.words()}
    return d.table.lower() == record.table.lower() and \
        all(w.casefold().rstrip("s") in own for w in m.dimension_words.get(did, []))


def _first(record, question: str) -> tuple[int, int]:
    """Where the question first says one of the record's words ("refunds above 3,000 … the order ID"), the
    longer word first where two start together ("order lines" over "order")."""
    q = question.casefold()
    return min(((i, -len(w)) for w in record.words() if (i := q.find(w.casefold().rstrip("s"))) >= 0),
               default=(len(q), 0))


def names_record(record, m: Mentions, model: SemanticModel, question: str) -> bool:
    """Whether the question names the record other than inside one of its fields' words (订单 in 订单号)."""
    if record.id not in m.records:
        return False
    if not question:
        return True
    words = {r.id: r.words() for r in model.records}
    taken = [(s, e) for _, s, e in named_fields(model, record, question) if not _inside_record(s, e, record, question)]
    return record.id in Spans.find(question, words, taken + verbs(question)).hits  # longest first


def _inside_record(s: int, e: int, record, question: str) -> bool:
    """Whether a field's word lies inside a longer word of the record itself ("items" in "line items")."""
    return any(a <= s and e <= b and b - a > e - s for a, b in Spans.find(question, {record.id: record.words()}).spans())


def _shared(record, m: Mentions, measure: str | None = None, dims: bool = False, question: str = "") -> bool:
    """Whether a measure's word in the question (any measure's, or `measure`'s; with `dims`, a dimension's)
    is also the record's own word, singular or plural ("refunds" names refunded orders and the refund
    records; "商品" names the product dimension and the product records)."""
    own = {w.casefold().rstrip("s") for w in record.words()}
    said = m.dimension_words if dims else m.measure_words
    words = said.get(measure, []) if measure else [w for ws in said.values() for w in ws]
    if dims and question:  # "Show customer name", 客户名: the name of the orders' customer, a field, not the customers
        words = [w for w in words if re.search(re.escape(w) + r"(?!\s*(?:'s\s+|’s\s+)?name\b|的?(?:姓名|名字|名称|名(?![单次])))", question, re.I)]
    return any(w.casefold().rstrip("s") in own for w in words)
