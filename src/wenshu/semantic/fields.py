"""What a detail list shows and how its rows are bounded, read from the question: the fields it names
("列一下订单号、退款金额和退款原因", "order id, customer name and amount paid"), and the value a
threshold bounds ("退款金额超过1000元", "orders over 8,000 yuan"; the thresholds: `semantic.thresholds`).

A record's fields are the columns of its table and the dimensions its rows look up without repeating
(the order's city, the customer's name). Their words come from the semantic model itself: a column's
name read as words (order_id: "order id"), the record's own `fields` words (订单号), the words of a
measure whose row value is that column (退款金额 is refund_amount's), and a dimension's words, also with
"name" after them (客户姓名, customer name). Nothing here is written for a particular question.
"""

from __future__ import annotations

import re

from wenshu.semantic.spans import Spans
from wenshu.semantic.model import Record, SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.thresholds import Threshold

_NAME_ZH = ("名", "名称", "姓名", "名字")
# a list's fields named after 要 / 包括 / a colon, two or more apart by 、 or commas ("要订单号、寄到哪个城市、实付多少",
# "order id, which city, amount paid"): a question word inside one asks for that field's value, not a count or a pick
_FIELDS_AFTER = re.compile(r"(?:要|包括|包含|带上|显示|附上|[:：])\s*([^。？?！!；;]+)")
_ITEM_SEP = re.compile(r"[、，,]|和|及|\band\b")
_ASKING = re.compile(r"哪个|哪家|哪一个|多少钱|多少|几|\bwhich\b|\bwhat\b", re.I)


def fields_asked(question: str) -> str:
    """`question` with the question words inside an enumeration of fields blanked (the same length: spans hold)."""
    for m in _FIELDS_AFTER.finditer(question):
        items = _ITEM_SEP.split(m.group(1))
        if len([i for i in items if i.strip()]) < 2:
            continue
        start, end = m.span(1)
        said = _ASKING.sub(lambda a: " " * len(a.group(0)), question[start:end])
        question = question[:start] + said + question[end:]
    return question


def field_words(model: SemanticModel, rec: Record) -> dict[str, list[str]]:
    """field (a column of the record's table, or a dimension id it reaches) -> the words that name it."""
    table = rec.table.lower()
    near = reachable(model).get(table, set()) | {table}
    out: dict[str, list[str]] = {}
    for d in model.dimensions:
        if d.table.lower() in near and d.kind == "category":
            words = d.words()
            out[d.id] = [*words, *(w + s for w in words if not w.isascii() for s in _NAME_ZH),
                         *(f"{w}{s} name" for w in words if w.isascii() for s in ("", "'s", "’s"))]
    for me in model.measures:
        if me.table.lower() == table and me.agg not in ("count", "count_distinct") and me.expr and re.fullmatch(r"\w+", me.expr):
            out.setdefault(me.expr, []).extend(me.words())
    columns = {*(c for c in rec.columns if c not in out), *(x for x in (rec.time, rec.order) if x), *rec.fields}
    for c in columns:
        if "." not in c:
            out.setdefault(c, []).extend([c.replace("_", " "), *rec.fields.get(c, [])])
    for d in model.dimensions:  # a time dimension of the record's own table: its date column, by the words
        if d.table.lower() == table and d.kind == "time":  # no other field claims (下单时间 is order_time's)
            claimed = {w.casefold() for f, ws in out.items() if f != d.column for w in ws}
            out.setdefault(d.column, []).extend(w for w in d.words() if w.casefold() not in claimed)
    return out | _looked_up(model, rec, near, out)


def _looked_up(model: SemanticModel, rec: Record, near: set[str], own: dict[str, list[str]]) -> dict[str, list[str]]:
    """Fields of the records this one's rows look up, as `table.column` (an order's customer's phone in a
    list of orders): each by the words no field of the list's own claims and no other looked-up record shares;
    dimensions are fields already, and a column the list has itself (order_id) is its own."""
    claimed, dims = {w.casefold() for ws in own.values() for w in ws}, {d.id for d in model.dimensions}
    found: dict[str, list[str]] = {}
    for other in model.records:
        if other.table.lower() in near and other.table.lower() != rec.table.lower():
            for column, words in other.fields.items():
                if column not in dims and column not in own:
                    found[f"{other.table}.{column}"] = list(dict.fromkeys([*words, column.replace("_", " ")]))
    taken = {w.casefold() for ws in found.values() for w in ws}
    for d in model.dimensions:  # the date of the order a refund is for, by the words no field claims
        if d.kind == "time" and d.table.lower() in near and d.table.lower() != rec.table.lower():
            found.setdefault(f"{d.table}.{d.column}", []).extend(w for w in d.words() if w.casefold() not in taken)
    counts: dict[str, int] = {}
    for words in found.values():
        for w in {w.casefold() for w in words}:
            counts[w] = counts.get(w, 0) + 1
    inside = " | ".join(claimed)  # "金额" inside the list's own 订单金额: the order's amount, not the refund's
    out = {f: [w for w in ws if w.casefold() not in claimed and counts[w.casefold()] == 1 and w.casefold() not in inside]
           for f, ws in found.items()}
    return {f: ws for f, ws in out.items() if ws}


def named_fields(model: SemanticModel, rec: Record, question: str) -> list[tuple[str, int, int]]:
    """(field, start, end) for each field the question names, in the order it names them."""
    spans = Spans.find(question, field_words(model, rec))
    return sorted(((f, s, e) for f, hits in spans.hits.items() for s, e in hits), key=lambda x: x[1])


def just_before(question: str, end: int, t: Threshold) -> bool:
    """Whether a word ending at `end` stands just before the threshold: a few characters between, an
    aside in brackets not counted ("order value (before coupons) of 1,000 yuan or more")."""
    return end <= t.start and len(re.sub(r"[(（][^)）]*[)）]", "", question[end:t.start])) <= 12


def target_of(t: Threshold, named: list[tuple[str, int, int]], rec: Record, model: SemanticModel,
              question: str, own_value: str | None = None) -> str | None:
    """The column a threshold bounds: the field named just before it ("退款金额超过1000元"), else
    `own_value` (the rows' own amount where the ranking measure does not cover them), else the record's
    ranking measure's column ("orders over 8,000 yuan"); None when nothing says."""
    before = [(f, e) for f, _, e in named if just_before(question, e, t) and "." not in f]
    columns = {me.expr for me in model.measures if me.expr} | set(rec.columns) | set(rec.fields)
    for f, _ in sorted(before, key=lambda x: -x[1]):
        if f in columns and not any(d.id == f for d in model.dimensions):
            return f
    head = re.search(r"([\u4e00-\u9fff]{2,4}?|[a-z]+)[在为是达到]{0,2}\s*$", question[:t.start], re.I)  # 金额 in "金额超过2000 … 订单金额"
    said = _said_of([head.group(1)] if head else [], [f for f, _, _ in named if f in columns], field_words(model, rec))
    if said or own_value:
        return said or own_value
    ranked = next((me for me in model.measures if me.id == rec.rank_by), None)
    if ranked is None:  # a column of the record's own, or nothing
        return rec.rank_by
    if not ranked.expr:
        return None
    return ranked.expr if re.fullmatch(r"\w+", ranked.expr) else ranked.id


_RANK_ZH = re.compile(r"([\u4e00-\u9fff]{2,4}?)(?:最(?:高|低|大|小|多|少))")
_RANK_EN = re.compile(r"\b(?:highest|lowest|largest|smallest|biggest|top|bottom)[- ]((?:[a-z]+ ){0,1}[a-z]+)", re.I)


def ranked_field(model: SemanticModel, rec: Record, fields: list[str], question: str) -> str | None:
    """The one listed field a rank word is said of: "金额最高的5笔 … 订单号、订单金额" ranks by the listed
    订单金额 (its word ends with the 金额 said), "the highest amount … order id, order amount" likewise."""
    said = [m.group(1) for m in _RANK_ZH.finditer(question)] + [m.group(1) for m in _RANK_EN.finditer(question)]
    return _said_of(said, fields, field_words(model, rec))


def _said_of(said: list[str], fields: list[str], words: dict[str, list[str]]) -> str | None:
    """The one field of `fields` whose word ends with the end of a said Chinese word (2 characters or more:
    金额 for 订单金额), or whose last English word is one of a said phrase's ("amount" for order amount)."""
    hits = {f for f in fields for w in words.get(f, []) for s in said
            if (not w.isascii() and any(len(t) >= 2 and w.endswith(t) for t in (s[i:] for i in range(len(s)))))
            or (w.isascii() and w.casefold().split()[-1] in {x.removesuffix("s") for x in s.casefold().split()})}
    return hits.pop() if len(hits) == 1 else None


# a word that adds the fields after it to what a list shows anyway ("refunds over 4,000, with the customer's name",
# 逐笔列一下，要金额和原因): not "show order id, amount and reason", which names every column
_ADDS = re.compile(r"(\bwith(?:\s+(?:the|their|its))?|\balong\s+with|\bincluding|\bplus|带上|附上|加上|连同|标上|要)\s*$", re.I)


def list_columns(rec: Record, fields: list[str], first_at: int, question: str, by_field: str | None) -> list[str]:
    """A list's columns: the record's own and the fields added to them ("with city and channel"), unless an id or
    the record's first column is among them ("with order id, refund time and amount": all of them); else two or more
    fields named are the columns; else the record's own, and the field a list with no value of its own is ranked by
    (`by_field`: 成本最高的商品, and the cost); [] the record's own."""
    if fields and not any(f == rec.columns[0] or re.search(r"(^|[._])id$", f) for f in fields) \
            and _ADDS.search(question[max(0, first_at - 16):first_at]):
        return [*rec.columns, *(f for f in fields if f not in rec.columns)]
    if len(fields) >= 2:
        return fields
    return [*rec.columns, by_field] if by_field and by_field not in rec.columns else []


def said_in_fields(model: SemanticModel, values: dict, named: list[tuple[str, int, int]], question: str) -> dict:
    """`values` without those said only inside the words of a field the list shows ("the date refunded": the refund
    date, no refunded status)."""
    spans, dims = [(s, e) for _, s, e in named], {d.id: d for d in model.dimensions}
    kept = {}
    for did, codes in values.items():
        d = dims.get(did)
        words = [w for c in codes for w in (d.label(str(c), "zh"), d.label(str(c), "en"), *d.aliases.get(str(c), []))
                 if w] if d else []
        hits = [x.span() for w in words for x in re.finditer(re.escape(w), question, re.I)]
        if not hits or not all(any(a <= s and e <= b for a, b in spans) for s, e in hits):
            kept[did] = codes
    return kept


def lookups_aside(model: SemanticModel, said: list[Record], question: str) -> list[Record]:
    """`said` without the records of a lookup table (categories, cities: no time column, nothing measured on it)
    when another record is said, or two or more of another record's fields are named: "paid orders with the buyer's
    name and the delivery city", "everyone who registered yesterday: name, gender, city": a field, not the list."""
    measured = {x.table.lower() for x in model.measures}

    def lookup(r: Record) -> bool:
        return not r.time and r.table.lower() not in measured

    def fielded(r: Record) -> bool:
        return len({f for f, _, _ in named_fields(model, r, question) if "." not in f}) >= 2

    others = [r for r in model.records if not lookup(r) and (r in said or fielded(r))]
    return [r for r in said if not (lookup(r) and others)]
