"""A ratio asked for by its parts rather than its name: the semantic model's ratios say what each is made of.

- An average of a ratio's numerator per its denominator's rows is the ratio: "the average spend per order" is GMV /
  orders, the model's average order value, not a list of each order's amount; so is the numerator "per" the
  denominator's own word ("spend more per order"). "How big was a refund on average": the average refund amount.
- A share with nothing to split it by, of a measure that is a ratio's numerator, is the ratio: "what percentage of
  orders were cancelled" is cancelled orders / all orders, the model's cancellation rate, not cancelled orders as
  100 % of themselves. Other counts of the same rows named with it ("orders") are the whole the share is of.
- A measure "as a % of" another, when the model has that ratio, is the ratio: "gross profit in yuan and as a
  % of sales" asks for gross profit and the gross margin (毛利占销售额的百分比 too), not sales.
- The rows a named ratio is a rate of, said after a preposition, are its scope, not another measure: "the
  refund rate on last quarter's orders" asks for the refund rate only (orders is the table its parts count).
- A measure per one of a ratio's denominator units (the model's `unit`) is the ratio: "单均件数" is units (件)
  per order (单); with nothing named, an average per the unit is the ratio whose numerator's unit is asked:
  "平均每单花多少钱" is GMV (元) / paid orders (单), "平均每单几件" units per order.
"""

from __future__ import annotations

import re

from wenshu.semantic.cues import cue
from wenshu.semantic.model import SemanticModel

MONEY_UNITS = {"元", "¥", "￥", "yuan", "rmb", "cny", "$", "usd", "dollars", "€", "eur"}
AVERAGE = re.compile(r"\b(average|avg|mean)\b|平均|均值", re.I)
_PER = r"(?:\bper|\ba|\ban|\beach|\bevery|\bon|/|每)\s*(?:个|笔|单|位|件)?\s*"
_TOPIC = r"\S*?(?:的[\u4e00-\u9fff]{1,3}?\s*(?:里|中)?|里|中)\s*[，,]?\s*的?(?:人均|平均|均)"  # 买过东西的客户，平均 (not 订单量，平均)
_UNIT_WORDS = {"人": ["person", "head", "capita"]}  # a count in people, said in English after "per": 人均
_SIZE = re.compile(r"^(?!.*\bhow many\b)(?!.*(?:多少|几)[个笔单]).*?(?:\bhow (?:big|large|much)\b|多大|多少钱)", re.I | re.S)  # one row's size


def averaged(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """`measures` with a numerator averaged per its denominator ("average spend per order") as the ratio; the
    numerator may also be named by its row value's field ("the average amount paid on orders": the amount
    paid is what GMV sums)."""
    average, units = AVERAGE.search(question), {x.id: (x.unit or "") for x in model.measures}
    for r in model.ratios:  # "per order", "on East China orders": up to three words between; "per person": 人
        per = words.get(r.denominator, []) + _UNIT_WORDS.get(units.get(r.denominator, ""), [])
        if average and r.denominator in measures and any(
                re.search(_PER + r"(?:[\w-]+\s+){0,3}" + re.escape(w), question, re.I) for w in per) and \
                (r.numerator in measures or _averages_field(model, r.numerator, question)):
            kept = [x for x in measures if x not in (r.numerator, r.denominator)]
            return [r.id, *kept]
        if average and _SIZE.search(question) and measures == [r.denominator] and units.get(r.numerator) in MONEY_UNITS:
            return [r.id]  # "how big was a refund on average": the money per refund
        if r.numerator in measures and _of_rows(model, question, r, words):  # "各渠道订单的平均实付金额"
            return [r.id, *(x for x in measures if x != r.numerator)]
        if not average and r.numerator in measures and r.denominator in measures and _per_after(question, r, words):
            kept = [x for x in measures if x not in (r.numerator, r.denominator)]
            return [r.id, *kept]
        if r.id in measures and _into(question, r, words):  # "convert visitors into paid orders": the rate alone
            return [x for x in measures if x not in (r.numerator, r.denominator)]
        if r.id in measures and r.denominator in measures and words.get(r.denominator) and all(
                re.search(_PER + "$", question[:m.start()], re.I)
                for w in words[r.denominator] for m in re.finditer(re.escape(w), question, re.I)):
            return [x for x in measures if x != r.denominator]  # "average selling price per unit": the ratio's own per
    return measures


def own_count(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """A ratio with its denominator named only right before 人均 / 平均 ("下单客户人均花了多少钱", "上个月买过东西的
    客户，平均每人花了多少钱"): the count says whom the average is per, it is not asked beside it."""
    for r in (r for r in model.ratios if r.id in measures and r.denominator in measures and words.get(r.denominator)):
        if all(re.match(r"\s*的?(?:人均|平均|均)", question[m.end():]) or re.match(_TOPIC, question[m.start():])
               for w in words[r.denominator] for m in re.finditer(re.escape(w), question, re.I)):
            return [x for x in measures if x != r.denominator]
    return measures


def _of_rows(model: SemanticModel, question: str, r, words: dict[str, list[str]]) -> bool:
    """Whether the question averages the numerator over the rows its denominator counts, said in Chinese before
    平均 ("订单的平均实付金额": the amount paid per order, not its sum)."""
    den = next((x for x in model.measures if x.id == r.denominator and x.agg == "count"), None)
    rows = [w for rec in model.records if den is not None and rec.table.lower() == den.table.lower()
            for w in rec.words() if re.fullmatch(r"[\u4e00-\u9fff]+", w)]
    return any(re.search(re.escape(row) + r"的?平均" + re.escape(n), question) for row in rows
               for n in words.get(r.numerator, []))


def per_unit(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]],
             money: bool) -> list[str]:
    """A ratio (not a percentage) whose denominator is named by its unit: "单均件数", "平均每单的件数" (a named
    numerator right after it) are units per order; with nothing named but an average per the unit ("平均每单",
    "人均"), the ratio whose numerator's unit is asked after it ("几件", "多少元") or whose numerator is money
    when money is asked (`money`: "多少钱"), or the only such ratio. `words`: each named measure's words."""
    units = {x.id: (x.unit or "").casefold() for x in model.measures}

    def per_words(loose: bool) -> dict[str, str]:
        found = {r.id: "|".join(filter(None, (_per_unit(units.get(r.denominator, ""), loose),
                                              _per_counted(model, r.denominator))))
                 for r in model.ratios if r.scale == 1 and r.unit != "%"}
        return {k: v for k, v in found.items() if v}

    per, out = per_words(False), list(measures)
    loose = per_words(True)  # with the numerator named, 平均每单退了多少钱 is per refund though refunds count in 笔
    for r in (r for r in model.ratios if r.id in loose and r.numerator in out):
        said = [m.start() for w in words.get(r.numerator, []) for m in re.finditer(re.escape(w), question, re.I)]
        if any(re.search(f"(?:{loose[r.id]})的?\\s*$", question[:at]) for at in said):  # 单均件数: the numerator after
            out = [r.id if x == r.numerator else x for x in out]
    if out != measures or len(measures) > 1:
        return out
    found, tables = [], {x.id: x.table.lower() for x in model.measures}
    for r in (r for r in model.ratios if r.id in loose and measures in ([], [r.numerator])):
        exact = r.id in per and re.search(per[r.id], question)
        hit = exact or re.search(loose[r.id], question)
        rows = hit and _rows_named(model, question[hit.end():])  # 平均每笔订单: per order, whatever its classifier
        if rows and rows != tables.get(r.denominator) or not exact and not rows:
            continue
        if hit and (AVERAGE.search(question) or "均" in hit.group(0)):
            own = units.get(r.numerator, "")
            asked = own and re.search(r"(?:多少|几)\s*" + re.escape(own), question[hit.end():])
            found.append((bool(measures or asked) or money and own in MONEY_UNITS, r.id))
    best = [rid for asked, rid in found if asked] or ([rid for _, rid in found] if len(found) == 1 else [])
    if len(best) > 1:  # 平均一单花多少钱: money per order with no measure named is the headline's (GMV's), not discounts'
        best = [r.id for r in model.ratios if r.id in best and r.numerator == model.headline]
    return best if len(best) == 1 else measures


def _rows_named(model: SemanticModel, after: str) -> str | None:
    """The table whose records are named at the start of `after`, a state of them before it or not (订单, 付款订单 ->
    orders), else None."""
    said = [(m.end() - len(w), rec.table.lower()) for rec in model.records for w in rec.words()
            if re.fullmatch(r"[\u4e00-\u9fff]+", w) and (m := re.match(rf"[\u4e00-\u9fff]{{0,3}}?{re.escape(w)}", after))]
    return min(said)[1] if said else None


_TRANSACTIONS = "单笔"  # the two classifiers of a transaction: 一单 and 一笔 count the same rows


def _per_unit(unit: str, loose: bool = False) -> str:
    """Words for "per one `unit`": 平均每单, 每一单, 单均, 每单平均, 平均一单 (no pattern for a unit that is no single CJK word;
    `loose`: a transaction's classifier also as the other one)."""
    if not re.fullmatch(r"[\u4e00-\u9fff]", unit):
        return ""
    u = f"[{_TRANSACTIONS}]" if loose and unit in _TRANSACTIONS else re.escape(unit)
    return rf"(?:平均)?每\s*[一1]?\s*{u}(?:平均)?|{u}均|平均\s*[一1]\s*{u}"


def _per_counted(model: SemanticModel, mid: str) -> str:
    """Words for "on average per one of what `mid` counts distinct": 平均每个客户 for buyers, a distinct count of
    the key of the customer dimension (its Chinese words; 每个客户的订单数 without 平均 is each customer's, a
    split); "" for any other measure."""
    me = next((x for x in model.measures if x.id == mid and x.agg == "count_distinct"), None)
    words = [w for d in model.dimensions if me is not None and d.key and d.key == me.expr
             for w in d.words() if re.fullmatch(r"[\u4e00-\u9fff]+", w)]
    if not words:
        return ""
    said = "(?:" + "|".join(map(re.escape, words)) + ")"
    one = r"每\s*[一1]?\s*[个位名]?\s*" + said
    return rf"平均\s*(?:{one}|[一1]\s*[个位名]\s*{said})|{one}\s*平均"


def per_counted_spans(model: SemanticModel, question: str) -> list[tuple[int, int]]:
    """Where the question says "on average per customer" (平均每个客户): the customer there is what a ratio's
    denominator counts, not a split by customer."""
    pats = [p for r in model.ratios if r.scale == 1 and r.unit != "%" if (p := _per_counted(model, r.denominator))]
    return [m.span() for p in dict.fromkeys(pats) for m in re.finditer(p, question)]


def _into(question: str, r, words: dict[str, list[str]]) -> bool:
    """The ratio named, then its denominator "into" / "to" its numerator ("how well did the app convert visitors
    into paid orders"), or the denominator, the ratio's word and "into" ("visitors convert into paid orders"): the
    parts say what the ratio is of, they are not asked beside it."""
    def said(mid: str) -> list[tuple[int, int]]:
        return [m.span() for w in words.get(mid, []) for m in re.finditer(re.escape(w), question, re.I)]

    own, den, num = said(r.id), said(r.denominator), said(r.numerator)
    into = r"\s+(?:into|to)\s+(?:[\w-]+\s+){0,2}"
    return any(a < d0 and re.fullmatch(into, question[d1:n0], re.I) for a, _ in own for d0, d1 in den for n0, _ in num) \
        or any(re.fullmatch(r"\s*", question[d1:a0]) and re.fullmatch(into, question[a1:n0], re.I)  # "visitors convert
               for a0, a1 in own for _, d1 in den for n0, _ in num)  # into paid orders"


def _per_after(question: str, r, words: dict[str, list[str]]) -> bool:
    """"do people spend more per order": the numerator named, then "per" and the denominator's word."""
    said = [m.start() for w in words.get(r.numerator, []) for m in re.finditer(re.escape(w), question, re.I)]
    per = [m.start() for w in words.get(r.denominator, [])
           for m in re.finditer(r"\bper\s+" + re.escape(w) + r"\b", question, re.I)]
    return bool(said and per) and min(said) < min(per)


_PERCENT_OF = re.compile(r"(?:%|\bpercent(?:age)?)\s+of\s+(?:the\s+|total\s+|all\s+)*$|占\s*$", re.I)


def percent_of(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """`measures` with a denominator said after "as a % of" / 占 (its numerator named too) as the ratio."""
    for r in model.ratios:
        # the denominator, or a coarser measure whose `finer` it is ("sales" of a category: product sales)
        base = next((x.id for x in model.measures if x.id in measures and r.denominator in (x.id, x.finer)), None)
        if not (r.numerator in measures and base and (r.scale == 100 or r.unit == "%")):
            continue
        said = [m for w in words.get(base, []) for m in re.finditer(re.escape(w), question, re.I)]
        if said and all(_PERCENT_OF.search(question[:m.start()]) for m in said):
            first = min(m.start() for m in said)  # "what share of all orders got cancelled": the part is not asked
            before = any(m.start() < first for w in words.get(r.numerator, []) for m in re.finditer(re.escape(w), question, re.I))
            return [r.id if x == base else x for x in measures if before or x != r.numerator]
    return measures


_SCOPE = re.compile(r"\b(?:on|of|for|among|across|in|from)\s+(?:[\w'’-]+\s+){0,3}$", re.I)


def rated_rows(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """`measures` without a count of rows another named measure is of, when each of its words comes after "on /
    of / for / among …": "the refund rate on last quarter's orders", "average refund on web orders", "for orders
    going to 西北, the top refund reasons by amount refunded" (the refunds' table looks the orders up)."""
    from wenshu.semantic.paths import reachable  # paths reads Mentions, which reads this module

    parts = {x.id: x for x in model.measures}
    near = reachable(model)
    rated = {parts[p].table.lower() for r in model.ratios if r.id in measures for p in (r.numerator, r.denominator)
             if p in parts}  # the rows a named ratio's parts count
    rows = {w.casefold().rstrip("s") for r in model.records for w in r.words()}  # "orders": the rows, no qualifier

    def of_others(x: str) -> set[str]:
        """The tables of the other named measures (a sum, or a count of other rows) and the tables they look up."""
        t = parts[x].table.lower()
        own = {parts[y].table.lower() for y in measures if y != x and y in parts
               and (parts[y].agg not in ("count", "count_distinct") or parts[y].table.lower() != t)}
        return own | rated | {u for o in own | rated for u in near.get(o, set())}

    def scope(x: str) -> bool:
        said = words.get(x, [])
        table = parts[x].table.lower() if x in parts else ""
        return x in parts and parts[x].agg == "count" and bool(said) \
            and (table in rated or table in of_others(x) and all(w.casefold().rstrip("s") in rows for w in said)) \
            and all(any(_SCOPE.search(question[:m.start()]) for m in re.finditer(re.escape(w), question, re.I))
                    for w in said)
    return [x for x in measures if not scope(x)]


def _averages_field(model: SemanticModel, mid: str, question: str) -> bool:
    """Whether "average" comes right before a record's word for the column measure `mid` sums (平均实付金额)."""
    me = next((x for x in model.measures if x.id == mid), None)
    if me is None or me.agg != "sum" or not re.fullmatch(r"\w+", me.expr or ""):
        return False
    fields = [w for r in model.records if r.table.lower() == me.table.lower() for w in r.fields.get(me.expr, [])]
    return any(re.search(f"(?:{AVERAGE.pattern})" + r"\s*(?:the\s+|的)?" + re.escape(w), question, re.I) for w in fields)


def share_of_whole(model: SemanticModel, measures: list[str]) -> list[str] | None:
    """The ratio a share of the whole asks for ("what percentage of orders were cancelled"), with the measures it
    replaces gone; None when no percentage of a part of the same rows (both parts on one table: not paid orders per
    visitor, unless the visitors are named too) has a named measure as its numerator."""
    parts = {x.id: x for x in model.measures}
    for r in model.ratios:
        if r.id in measures and r.numerator in measures:
            return list(measures)  # "profit, and as a % of sales": the percentage is already the ratio
        if r.numerator in measures and r.denominator in parts and r.numerator in parts and (r.scale == 100 or r.unit == "%") \
                and (parts[r.numerator].table == parts[r.denominator].table or r.denominator in measures):
            table = parts[r.denominator].table.lower()
            whole = {x for x in measures if x in parts and parts[x].agg == "count" and parts[x].table.lower() == table}
            whole.add(r.denominator)  # "下过单的客户中，复购客户占几成": the buyers are the whole
            return [r.id, *(x for x in measures if x != r.numerator and x not in whole)]
    return None


# the whole a share is taken of, said before one of its values ("what % of all 华北 orders", "占华北订单的",
# "among 华北 orders") or after it, before the share ("华北订单中钻石会员占比多少")
_WHOLE_BEFORE = re.compile(r"(\b(percent(age)?|share|proportion|fraction|out|how much)\s+of|%\s*of|\bamong|\bwithin|占了?)"
                           r"\s*((all|the|total|every|our)\s+)*(全部|所有|整个)?$", re.I)
_PART_AFTER = re.compile(r"\s*(in|to|among|within|of|across)\b", re.I)  # "the share of 华北 in total GMV": the part
_WHOLE_AFTER = re.compile(r"(的)?[^，。？,.?!\s]{0,8}?(当中|之中|里面|之内|中|里)")
# a value set before the question as its scope: "In South China, what % of …", "在华南，…占比多少"
_LEAD = re.compile(r"^\s*((in|for|within|among)\s+(the\s+)?|在|就)?$", re.I)
_LEAD_END = re.compile(r"[^，。？,.?!:：\s]{0,4}\s*([,，:：]|\s-\s)")
# a leading clause that sets the whole and holds the value: "Of last month's paid orders shipped to 一线 cities, what %…"
_CLAUSE = re.compile(r"(^|[,，:：])\s*(of|among|within)\s[^,，:：?？。]*$", re.I)  # "Last month, among …" too
_CLAUSE_END = re.compile(r"[^,，:：?？。]{0,40}[,，:：]")


def share_within(question: str, value_at: dict[str, list[tuple[int, int]]], share: str) -> list[str]:
    """The dimensions whose value the question names as the whole of its share (`share`: the share cue):
    the share's whole keeps their filters, not only the part's."""
    out = []
    for did, spans in value_at.items():
        for s, e in spans:
            before = _WHOLE_BEFORE.search(question[:s]) and not _PART_AFTER.match(question[e:])
            after = (hit := _WHOLE_AFTER.match(question[e:])) and re.search(share, question[e + hit.end():], re.I)
            lead = _LEAD.match(question[:s]) and (hit := _LEAD_END.match(question[e:])) \
                and re.search(share, question[e + hit.end():], re.I)
            clause = _CLAUSE.search(question[:s]) and (hit := _CLAUSE_END.match(question[e:])) \
                and re.search(share, question[e + hit.end():], re.I)
            if before or after or lead or clause:
                out.append(did)
                break
    return out


_PART_AS_PERCENT = re.compile(r"\bhow much of\b.*\b(as|in) (a )?(percent(age)?|share|proportion)\b", re.I)


def asks_amount(measure_words: dict[str, list[str]], question: str) -> bool:
    """Whether the question asks how much or how many ("how many orders", "贡献了多少成交额"): with a share of a
    filtered part, the part's value is shown beside its share (`measure_words`: each named measure's words)."""
    if _PART_AS_PERCENT.search(question):  # "how much of our sales came from 小米, as a percentage": the share alone
        return False
    said = [w for ws in measure_words.values() for w in ws if w]
    return cue("amount", question) or any(re.search(r"多少\s*" + re.escape(w), question, re.I) for w in said)
