"""A count of rows or units asked for without naming a measure: "这周一共卖出去多少单", "上个月一共有多少笔
付了款的订单", "上个月取消的订单有多少" are counts of orders, though none says 订单量.

The semantic model says what can be counted:
- a count measure's `unit` (单, 笔, 人, 件): "多少单" names the count measures whose unit is 单 (of the rows the
  question names, when it names some: "已付款的订单有多少笔" does not count refunds in 笔);
- a record's table: "多少笔…订单", "订单有多少", "how many … orders" name the row counts (`agg: count`) on the
  record's table (a record counted is more specific than a unit: "多少笔订单" counts orders, not refunds in 笔);
- a value of the column a count's own filter pins ("几笔付了款": the paid status) names those rows, whatever unit
  their counts are in.
Among several, the values named decide: a measure whose own filter is the value named ("取消的": status 2) comes
first; one whose filter excludes a value named is left out ("paid orders" cannot count cancelled ones); otherwise the
model's order decides (the count declared first is the default). The others are no alternatives for the plan's model:
a unit or a row name is no word of theirs, and a small model must not swap the default for "orders placed".

A dimension's members counted with no measure named ("每个会员等级各有多少个买家") are the model's one count of distinct
keys that looks the dimension up (`semantic.distinct`), unless the word names the dimension table's rows."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from wenshu.semantic.model import Measure, SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.ratios import AVERAGE, MONEY_UNITS
from wenshu.semantic.variants import entry_words
from wenshu.semantic.spans import Spans

_HOW_MANY = r"(?:多少|(?<!哪)几)(?:个(?=人))?"  # 多少个人: how many people (哪几个人: which)
_MONEY = MONEY_UNITS | {"%"}  # a sum in these is an amount, not a number of pieces
_PUNCT = "，。？！；,.?!;"
# "多少笔已支付订单", "how many paid orders": the count word before the rows, in the same clause
_BEFORE = re.compile(r"(?:" + _HOW_MANY + f"[^{_PUNCT}]{{0,8}}"
                     r"|\b(?:how many|number of|count of)\s+(?:[\w-]+\s+){0,3})$", re.I)
# "取消的订单有多少", "purchase count": the rows, then the count word (at the end of the clause)
_AFTER = re.compile(r"^\s*(?:的)?(?:有|是|共|一共|总共|合计|总计)*\s*" + _HOW_MANY + r"\s*(?:个|笔|单|条|张)?\s*了?\s*(?:"
                    + f"[{_PUNCT}]" + r"|$)|^\s+count\b"  # "purchase count" ("purchase total" is money)
                    r"|^\s*最(?:多|少)(?!的?钱)", re.I)  # "退款最多的原因": the most refunds


def own_filter(measure: Measure) -> dict[str, set[str]] | None:
    """column -> the values a measure's filter keeps, when the filter is `col = v` / `col IN (…)` joined by
    AND; {} without a filter; None for any other condition (it neither matches nor excludes a value)."""
    if not measure.filter:
        return {}
    try:
        tree = sqlglot.parse_one(measure.filter)
    except sqlglot.errors.SqlglotError:
        return None
    out: dict[str, set[str]] = {}
    for cond in tree.flatten() if isinstance(tree, exp.And) else [tree]:
        cond = cond.unnest()
        if isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal):
            out.setdefault(cond.this.name.lower(), set()).add(cond.expression.name)
        elif (isinstance(cond, exp.In) and isinstance(cond.this, exp.Column) and cond.expressions
              and all(isinstance(v, exp.Literal) for v in cond.expressions)):
            out.setdefault(cond.this.name.lower(), set()).update(v.name for v in cond.expressions)
        else:
            return None
    return out


def free_count(model: SemanticModel, measures: list[str], dims: list[str]) -> list[str]:
    """"order count by status": a split by a column the count's own filter pins (paid orders keep status 1)
    would show one member; the count of the same rows with no filter on that column (all orders) splits."""
    by_id, out = {x.id: x for x in model.measures}, []
    split = {d.column.lower() for d in model.dimensions if d.id in dims}
    for mid in measures:
        me, pinned = by_id.get(mid), None
        if me is not None and me.agg == "count":
            own = own_filter(me) or {}
            tables = {d.table.lower() for d in model.dimensions if d.id in dims and d.column.lower() in own}
            pinned = me.table.lower() in tables
        free = next((x for x in model.measures if pinned and x.agg == "count" and x.table == me.table
                     and own_filter(x) is not None and not split & set(own_filter(x))), None)
        out.append(free.id if free else mid)
    return list(dict.fromkeys(out))


_PLAIN = "数量总额多少几个了的是有"  # characters of many names: no evidence


def _hinted(model: SemanticModel, measure: Measure, question: str) -> bool:
    """Whether a content character of one of the measure's Chinese names is said ("卖出去多少件" and 卖出件数; not
    "下单多少次" and 浏览次数): a unit alone is no evidence of a sum."""
    said = {c for w in entry_words(model, measure) for c in w if "\u3400" <= c <= "\u9fff"} - set(_PLAIN + measure.unit)
    return any(c in question for c in said)


def restated(model: SemanticModel, measures: list[str], filters: list) -> list:
    """`filters` without those that only restate the own filter of a named ratio's numerator: "上个月取消的订单占多少
    比例" is the cancellation rate, whose "cancelled" is its numerator's; on the whole it would make it 100 %."""
    parts = {x.id: x for x in model.measures}
    dims = {d.id: d for d in model.dimensions}
    owns = [(parts[r.numerator].table.lower(), own_filter(parts[r.numerator]) or {})
            for r in model.ratios if r.id in measures and r.numerator in parts]
    return [f for f in filters if not (f.op == "in" and f.dimension in dims and any(
        table == dims[f.dimension].table.lower() and set(f.values) <= own.get(dims[f.dimension].column.lower(), set())
        for table, own in owns))]


def _fit(measure: Measure, named: dict[str, set[str]], left: set[str] = frozenset()) -> int | None:
    """2: its filter is exactly a value named; 1: consistent with what is named; None: it excludes one, or
    fixes a column whose values the question leaves out (`left`: "除了已取消的…多少单" counts every other status)."""
    own = own_filter(measure)
    if own is None:
        return 1
    if any(col in own for col in left) or any(col in own and not codes <= own[col] for col, codes in named.items()):
        return None
    return 2 if any(own.get(col) == codes for col, codes in named.items()) else 1


def with_counts(model: SemanticModel, question: str, values: dict[str, list[str]],
                records: dict[str, list[tuple[int, int]]], measures: list[str], alternatives: dict[str, list[str]],
                aggregate: bool, spans: dict[str, list[tuple[int, int]]],
                excluded: list[str] = ()) -> tuple[list[str], dict[str, list[str]]]:
    """`measures` (and their alternatives) with the count the question asks for: in place of none, or
    beside the ones named ("paid purchase count and revenue"), unless one of the same rows' counts is
    already named. `aggregate`: the question compares, trends or shares, so rows it names without a
    count word are counted too ("paid purchases last week versus the week before"). `spans`: where each
    named measure is said; `excluded`: the dimensions whose named values are left out."""
    words = re.search(_HOW_MANY + r"|\b(how many|number of|count of|count|total)\b|[\u4e00-\u9fff]最(多|少)", question, re.I)
    if not (words or aggregate and not measures):
        return measures, alternatives
    found = counted(model, question, values, records, anywhere=aggregate and not measures, excluded=excluded)
    if not found:
        return measures, alternatives
    if not measures:
        return found[:1], alternatives
    count = next(x for x in model.measures if x.id == found[0])
    if count.table.lower() in {x.table.lower() for x in model.measures
                               if x.id in measures and x.agg in ("count", "count_distinct")}:
        return measures, alternatives
    # in the order the question names them: "paid purchase count and revenue" is the count first
    said = [s for r in model.records if r.table.lower() == count.table.lower() for s, _ in records.get(r.id, [])]
    asks = [m.start() for m in re.finditer(_HOW_MANY + r"\s*(\S)", question) if m.group(1) == count.unit]
    parts = {r.numerator for r in model.ratios if r.id in measures}  # "平均每单几件": 件 of the ratio's numerator
    if not said and (count.unit in {x.unit for x in model.measures if x.id in measures or x.id in parts} or asks and all(
            any(s <= a < e for x in measures for s, e in spans.get(x, [])) for a in asks)):
        return measures, alternatives  # "新客有多少人": 人 is the named measure's; "成交了多少笔": its 笔, no refund
    said += asks
    at = min(said, default=len(question))
    averaged = AVERAGE.search(question)  # a ratio read from an average ("平均一单多少钱") is said where the average is
    unsaid = {r.id: averaged.start() for r in model.ratios if averaged}
    before = [x for x in measures if min((s for s, _ in spans.get(x, [])), default=unsaid.get(x, 0)) < at]
    return [*before, found[0], *measures[len(before):]], alternatives


def counted(model: SemanticModel, question: str, values: dict[str, list[str]],
            records: dict[str, list[tuple[int, int]]], anywhere: bool = False, excluded=()) -> list[str]:
    """The count measures the question asks for by a unit or by the rows it counts, the one to use first
    (`anywhere`: rows named anywhere in the question are counted, not only next to a count word)."""
    counts = [x for x in model.measures if x.agg in ("count", "count_distinct")]
    pieces = [x for x in model.measures if x.agg == "sum" and x.unit and x.unit not in _MONEY  # 件: units sold,
              and _hinted(model, x, question)]  # when the question also says a character of its name (卖 of 卖出件数)
    named = {r.table.lower() for r in model.records if r.id in records}
    pinned = set() if named else {  # "几笔付了款": a value of the column a count's own filter pins names its rows
        x.table.lower() for x in counts for d in model.dimensions if d.id in values
        and d.table.lower() == x.table.lower() and d.column.lower() in (own_filter(x) or {})}
    named, said = named or pinned, [m.group(1) for m in re.finditer(_HOW_MANY + r"\s*(\S)", question)]
    # "订单有多少笔": not refunds in 笔; "几笔付了款": the orders' counts, whatever their own unit
    units = {x.id for x in counts + pieces if x.unit in said and (not named or x.table.lower() in named)} or {
        x.id for x in counts if x.table.lower() in pinned and {c.unit for c in counts} & set(said)}
    tables = {r.table.lower() for r in model.records if r.id in records and (anywhere or any(
        _BEFORE.search(question[:s]) or _AFTER.match(question[e:]) for s, e in records[r.id]))}
    rows = {x.id for x in counts if x.agg == "count" and x.table.lower() in tables}
    pool = (rows & units) or rows or units
    fits = []
    for x in (x for x in counts + pieces if x.id in pool):
        here = [d for d in model.dimensions if d.id in values and d.table.lower() == x.table.lower()]
        named = {d.column.lower(): set(values[d.id]) for d in here if d.id not in excluded}
        if (fit := _fit(x, named, {d.column.lower() for d in here if d.id in excluded})) is not None:
            fits.append((-fit, x.id))
    return [mid for _, mid in sorted(fits, key=lambda f: f[0])]


_ASKED = re.compile(r"\b(how many|number of|count of|count|number(?= and\b))\b|(多少|几)\s*(笔|单|个|次|件|位|人)", re.I)


def asked(question: str) -> bool:
    """Whether the question asks how many ("how many refunds", "多少笔"), not only how much."""
    return _ASKED.search(question) is not None


_SHARE_OF = r"\b(?:percentage|percent|share|proportion|%)\s+of\s+(?:all|the total|total|the|all the)?\s*"


def not_asked(measures: list[str], words: dict[str, list[str]], model: SemanticModel, question: str,
              money_asked: bool) -> list[str]:
    """`measures` without a count that names the rows the money of the same rows is asked of: the topic of
    "Refunds by reason: how much money went back for each" (`money_asked`), or the whole of "the refunded
    amount per reason with each one's percentage of all refunds". A count asked for ("how many refunds and
    how much money") stays."""
    by_id = {x.id: x for x in model.measures}
    sums = [by_id[x] for x in measures if x in by_id and by_id[x].agg == "sum"]
    if not sums or asked(question):
        return measures
    out = []
    for x in measures:
        me = by_id.get(x)
        twin = me is not None and me.agg == "count" and any(s.table == me.table and s.filter == me.filter for s in sums)
        base = any(re.search(_SHARE_OF + re.escape(w), question, re.I) for w in words.get(x, []))
        counted = any(re.match(r"多少|几", w) for w in words.get(x, []))  # 下了多少付款订单: asked for itself
        if not (twin and (money_asked or base)) or counted:
            out.append(x)
    return out


def _rows_in(model: SemanticModel, table: str, word: str) -> list[tuple[int, int]]:
    """Where a word names the rows of `table` (its records' names: "orders", 订单)."""
    return Spans.find(word, {r.id: r.words() for r in model.records if r.table.lower() == table.lower()}).spans()


def qualified(model: SemanticModel, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """`measures` without a count named only by the name of its rows when another count of the same rows is
    named by a qualifier alone: in "how many orders got cancelled" the cancelled orders count is named by
    "cancelled" and "orders" names the rows it counts, not the paid orders count (whose English name is the
    bare rows' name). "orders and cancelled orders" keeps both: there the qualified count's own words name
    its rows."""
    by_id = {x.id: x for x in model.measures}
    counts = [by_id[x] for x in measures if x in by_id and by_id[x].agg in ("count", "count_distinct")]

    def bare(x: Measure) -> bool:
        return bool(words.get(x.id)) and all((0, len(w)) in _rows_in(model, x.table, w) for w in words[x.id])

    def by_qualifier(x: Measure) -> bool:
        return bool(words.get(x.id)) and not any(_rows_in(model, x.table, w) for w in words[x.id])

    dropped = {x.id for x in counts if bare(x) and any(o.id != x.id and o.table.lower() == x.table.lower()
                                                         and by_qualifier(o) for o in counts)}
    return [x for x in measures if x not in dropped]


def rows_only(model: SemanticModel, measures: list[str], words: dict[str, list[str]], earlier: list[str]) -> bool:
    """Whether `measures` are counts named only by the name of their rows ("the orders"), on a table an earlier turn's
    measures measure or look up (after refunds, "orders shipped to …"): in a follow-up they say which rows."""
    by_id, reach = {x.id: x for x in model.measures}, reachable(model)
    parts = {r.id: [r.numerator, r.denominator] for r in model.ratios}  # a rate's rows are its two counts'
    own = {by_id[p].table.lower() for x in earlier for p in parts.get(x, [x]) if p in by_id}
    tables = own | {t for o in own for t in reach.get(o, set())}
    return bool(measures) and all(
        x in by_id and by_id[x].agg == "count" and by_id[x].table.lower() in tables and words.get(x)
        and all((0, len(w)) in _rows_in(model, by_id[x].table, w) for w in words[x]) for x in measures)
