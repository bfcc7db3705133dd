"""Column names a compiled plan gives its results, in the answer's language (Chinese or English), whether a
dimension's stored codes show as their labels, and the words that name a stored code."""

from __future__ import annotations

import re

from wenshu.semantic.cues import CUES
from wenshu.semantic.model import Dimension, SemanticModel
from wenshu.semantic.spans import Spans

PERIOD = {"zh": {"day": "日期", "week": "周", "month": "月份", "quarter": "季度", "year": "年份"},
          "en": {"day": "day", "week": "week", "month": "month", "quarter": "quarter", "year": "year"}}
COMPARE = {"zh": {"yoy": ("去年同期", "同比%"), "previous": ("上期", "环比%"), "week": ("上周同期", "周同比%")},
           "en": {"yoy": ("same period last year", "YoY %"), "previous": ("previous period", "change %"),
                  "week": ("same days last week", "WoW %")}}
# the change of a percentage (退款率, conversion) is told in points: 3.1 % -> 3.4 % is +0.3, not +9.7 %
POINTS = {"zh": {"yoy": "同比(百分点)", "previous": "环比(百分点)", "week": "周同比(百分点)"},
          "en": {"yoy": "YoY (pts)", "previous": "change (pts)", "week": "WoW (pts)"}}
SHARE = {"zh": "占比%", "en": "share %"}
DIFFERENCE = {"zh": "{}变化量", "en": "{} change"}  # a comparison's change as an amount: 订单量变化量
DECREASE = {"zh": "{}减少额", "en": "{} decrease"}  # members ranked by how much they fell: the fall, positive
# two members' gap (the first's minus the second's), a percentage's in points: 销售额差额, refund rate gap (pts)
GAP = {"zh": {False: "{}差额", True: "{}相差(百分点)"}, "en": {False: "{} gap", True: "{} gap (pts)"}}
# the number of members (periods) a count of members answers with: 城市数, number of cities, 天数, number of days
COUNTED_PERIOD = {"zh": {"day": "天数", "week": "周数", "month": "月数", "quarter": "季度数", "year": "年数"},
                  "en": {g: f"number of {g}s" for g in ("day", "week", "month", "quarter", "year")}}
PER = {"zh": {"day": "日均{}", "week": "周均{}", "month": "月均{}", "quarter": "季均{}", "year": "年均{}"},
       "en": {g: f"average {a} {{}}" for g, a in (("day", "daily"), ("week", "weekly"), ("month", "monthly"),
                                                   ("quarter", "quarterly"), ("year", "yearly"))}}


def change_name(name: str, compare: str, lang: str, points: bool) -> str:
    """The column of a measure's change: "销售额同比%", "refund rate change (pts)"."""
    growth = POINTS[lang][compare] if points else COMPARE[lang][compare][1]
    return f"{name}{growth}" if lang == "zh" else f"{name} {growth}"


def member_column(member: str, name: str, lang: str) -> str:
    """The column of one member's value of a measure: 华东销售额, "Guangzhou average order value"."""
    return f"{member}{name}" if lang == "zh" else f"{member} {name}"


def counted_name(name: str, lang: str, grain: str | None = None) -> str:
    """The column of a count of members: 客户数, number of customers; of a trend's periods: 天数, number of days."""
    if grain:
        return COUNTED_PERIOD[lang][grain]
    if lang == "zh":
        return f"{name}数"
    plural = name[:-1] + "ies" if name.endswith("y") and name[-2:-1] not in "aeiou" else \
        name + "es" if name.endswith(("s", "x", "ch", "sh")) else name + "s"
    return f"number of {plural}"


def coded(d: Dimension) -> bool:
    """Stored numeric codes (1 = 一线) show as their labels; a stored word (app, web) shows as stored."""
    return bool(d.labels) and all(c.lstrip("-").isdigit() for c in d.labels)


def own_order(d: Dimension) -> bool:
    """Members with an order of their own, shown in it: numeric codes (一线, 新一线…) and the hours of a day."""
    return coded(d) or d.part == "hour_of_day"


def hour_dimension(model: SemanticModel, measures: list[str]) -> str | None:
    """The hour of the day a span of clock time filters: the one on a named measure's table, else the model's first."""
    hours = [d for d in model.dimensions if d.part == "hour_of_day"]
    tables = {x.table.lower() for x in model.measures if x.id in measures}
    return next((d.id for d in hours if d.table.lower() in tables), hours[0].id if hours else None)


def in_said_order(d: Dimension, values: list, question: str) -> list:
    """A filter's values in the order the question names them ("寄到北京的单子跟寄到上海的比": 北京, then 上海), so two
    set side by side come as said; a value not found keeps its place after those that are."""
    q, words = question.casefold(), label_words(d)

    def at(v) -> int:
        found = [q.find(w.casefold()) for w in words.get(str(v)) or [str(v)] if w and w.casefold() in q]  # a code: its words
        return min(found, default=len(q))

    return sorted(values, key=at)


def label_words(d: Dimension) -> dict[str, list[str]]:
    """stored code -> the words that name it (the code itself when it reads as a word, its labels, aliases; a
    state said as done, 已退款, also as 退款了的 and 已经退款; "退款了多少钱" asks an amount, no state)."""
    out: dict[str, list[str]] = {}
    for code in {*d.labels, *d.labels_en, *d.aliases}:
        words = [d.labels.get(code, ""), d.labels_en.get(code, ""), *d.aliases.get(code, [])]
        if not code.lstrip("-").isdigit() and len(code) > 1:
            words.append(code)
        done = [w[1:] for w in words if re.fullmatch(r"已[\u4e00-\u9fff]{2,}", w)]  # 已退款: 退款了的, 已经退款
        words += [f"{w}了的" for w in done] + [f"已经{w}" for w in done]
        out[code] = list(dict.fromkeys(w for w in words if w))
    return out


def label_spans(model: SemanticModel, question: str) -> list[tuple[int, int]]:
    """Where the question names a value of any dimension (each dimension read on its own)."""
    return [span for d in model.dimensions for span in Spans.find(question, label_words(d)).spans()]


def qualifying_values(model: SemanticModel, question: str, named: dict[str, list[tuple[int, int]]],
                      beside: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """Of the spans where measures are named (`named`: measure id -> spans), those that are also a dimension's
    value when a measure of another table is named elsewhere: "新用户的订单量" and "new customers' revenue" ask for
    the orders and the revenue of new customers (a value of customer type), not for the count of new customers
    beside them; "cancelled orders' value" stays the count of one table and its value. `beside`: measures of the
    plan a follow-up edits, as if named too, unless it asks a number ("只看新用户" is a filter, "新用户有多少" a count)."""
    labelled = label_spans(model, question)
    tables = {e.id: e.table for e in model.measures}
    others = [*named, *(beside if not re.search(CUES["asks_count"], question, re.I) else ())]
    return [(s, e) for mid, spans in named.items() if mid in tables for s, e in spans
            if any(a <= s and e <= b for a, b in labelled)
            and any(other != mid and _table_of(model, other) not in (None, tables[mid]) for other in others)]


def _table_of(model: SemanticModel, mid: str) -> str | None:
    """A measure's table; a ratio's numerator's (客单价: the orders')."""
    ratio = next((r for r in model.ratios if r.id == mid), None)
    mid = ratio.numerator if ratio is not None else mid
    return next((e.table for e in model.measures if e.id == mid), None)


def not_the_measures_own(values: dict[str, list[str]], model: SemanticModel, measures: list[str]) -> dict[str, list[str]]:
    """"the money refunded" with the refund amount named: "refunded" describes the measure of another table
    (its own word "refunded amount"), not a filter on the orders' status; "paid orders" keeps "paid". New in the
    window by the date a named measure's own window reads ("新注册的用户" with the sign-ups counted) is that window."""
    dims, out = {d.id: d for d in model.dimensions}, {}
    timed = {(e.table, e.time) for e in model.measures if e.id in measures}
    for did, codes in values.items():
        if dims[did].part == "new_in_window" and (dims[did].table, dims[did].column) in timed:
            continue
        own = [w.casefold() for e in model.measures if e.id in measures and e.table != dims[did].table
               for w in e.words()]
        kept = [c for c in codes if not any(
            (re.search(rf"(?<![a-z]){re.escape(w.casefold())}(?![a-z])", o) if w.isascii() else w in o)
            for w in label_words(dims[did]).get(c, []) for o in own)]
        if kept:
            out[did] = kept
    return out
