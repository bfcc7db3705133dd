"""What a question says, read against a semantic model's own words: measures, dimensions, values, operators.

Everything here comes from the model (names, synonyms and labels of its entries), the value index's
hits and the operator words of the language itself (`semantic.cues`: Chinese and English words for a trend,
同比/环比, 占比, top N) — never from a particular question set. A small model's plan is then
reconciled with it (`semantic.grounding`), and a follow-up's edits are read from it
(`semantic.edits`).

- Words are matched longest first and each stretch of the question counts once: 商品销售额 is not
  also 销售额, yet "毛利和毛利率" names both 毛利 and 毛利率. ASCII words match on word boundaries.
- A dimension is `split` (the answer has one row per member) when a split word comes just before its
  name (各, 每个, 按, 不同, 哪个, "5个", by, per, each, which); a name right after one of its own values
  ("华南大区") is a filter, not a split.
- Values are a dimension's labels (Chinese or English) or the value index's hits on its column (a hit
  never inside a record's word for a column: 商品总额 holds no 商品).
"""

from __future__ import annotations

import re
from dataclasses import replace

from wenshu.knowledge.clock_hours import hours_said
from wenshu.semantic import counting, phrasing, ratios
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.grains import GRAIN_WORDS, explicit_grain, per_period
from wenshu.semantic.labels import hour_dimension, label_spans, label_words, not_the_measures_own, qualifying_values
from wenshu.semantic.cues import AND, COUNTED, CUES, EN, EN_NUM, IN_PERCENT, NOT_PERIOD, NUM, SPLIT_BEFORE, cue
from wenshu.semantic.events import event_count
from wenshu.semantic.exclusions import left_out, left_out_words, the_rest
from wenshu.semantic.part_rates import part_rate
from wenshu.semantic.ordinal import ranged
from wenshu.semantic.roles import dimension_roles
from wenshu.semantic.same_period import said_as_window
from wenshu.semantic.routes import said_routes
from wenshu.semantic.short_names import short_names
from wenshu.semantic.mentioned import Mentions
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import apart, entry_words, possessive

_CN = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text.lower() in EN:
        return EN[text.lower()]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN.get(tens, 1) if tens else 1) * 10 + (_CN.get(ones, 0) if ones else 0)
    return _CN.get(text)


def top_n(question: str) -> int | None:
    """The N of "前N", "top N", "N个城市", "最高的5个"; None when the question names no number."""
    for pat in (r"\b(?:which|what)\s+" + EN_NUM + r"\s+(?:[a-z]|[^\x00-\x7f])",  # "which three 家用电器 brands"
                r"(?:前|后)\s*" + NUM + r"\s*(?:名|个|位|家|款|大|的|是|$)" + NOT_PERIOD,
                r"(?<![a-z])(?:top|bottom)\s*" + EN_NUM, r"(?<![同某每任])" + NUM + COUNTED,  # "Top10"; 同一个: no N
                r"\b" + EN_NUM + r"\s+(?:top|most|least|highest|lowest|largest|smallest|biggest|best|worst)\b",
                r"\b(?:highest|lowest|largest|smallest|biggest|best|worst)\s+(\d{1,3}|" + "|".join(EN) + r")\b(?!\s*%)",
                r"\b(?:the\s+)?" + EN_NUM + r"\s+(?:[\w-]+\s+){0,2}?(?:with|by|that|which|whose|where|who)\b"):
        m = re.search(pat, question, re.I)
        if m and (n := number(m.group(1))):
            return n
    return 1 if cue("single", question) and cue("rank", question) and not cue("ordered", question) else None


# "各渠道退款率多少？哪个最高", "revenue by category, and which one was biggest?": every member, the top one first
_WHICH_AFTER = re.compile(r"[,，。？?;；]\s*(?:and\s+|还有|以及|并且|那)?\s*(?:哪个|哪一个|哪家|哪一?类|哪一?项|which one\b"
                          r"|which (?:was|is|were|are|had|has|did|does|grew|fell|made|sold)\b)", re.I)


def also_which(question: str, split: list[str]) -> bool:
    """Each member's value asked, then which of them is the top in a clause of its own: all of them, ranked."""
    which = _WHICH_AFTER.search(question)
    before = question[:which.start()] if which else ""
    return bool(split) and bool(re.search(r"各|每|分别|\b(?:by|per|each|every)\b", before, re.I)) and top_n(before) is None


_ORDER_BY = re.compile(r"(?:^|[.;:,!?]\s*|\bplease\s+)(order|sort|rank)(?=(?:\s+[\w'-]+){1,5}\s+by\b"
                       r"|\s+(?:the|them|these|those|all|each|every|it)\b)", re.I)  # "order the regions from …"


def verbs(question: str) -> list[tuple[int, int]]:
    """Where "order", "sort" or "rank" asks to order ("order the regions by …"): no orders named there."""
    return [m.span(1) for m in _ORDER_BY.finditer(question)]


def oriented(m: Mentions, model: SemanticModel, measure: str | None) -> str | None:
    """The rank's direction for `measure`: "the worst refund rate" is its highest, "the worst GMV" its lowest."""
    entry = next((e for e in [*model.measures, *model.ratios] if e.id == measure), None)
    if m.order and m.judged and entry is not None and entry.better == "lower":
        return "desc" if m.order == "asc" else "asc"
    return m.order


def headlined(model: SemanticModel, m: Mentions, question: str) -> Mentions:
    """A question (not a follow-up, which keeps its plan's measure) that ranks by judgement and names no measure
    ("哪个渠道卖得最好", "which region is doing worst"), or asks how members did ("how did each region do last
    month", 各渠道表现如何), or what was made or spent ("what did the app make", 各掏了多少钱): by the model's headline
    measure."""
    if m.measures or not model.headline or m.near_measures:
        return m
    if not (m.rank and m.judged or cue("performance", question) and (m.split or m.values) or cue("earned", question)
            or _sold_past(question) or _MONEY_MADE.search(question)):
        return m
    return replace(m, measures=[model.headline], measure_words={model.headline: []})


# money made or spent asked with a verb and no measure ("各掏了多少钱", "平均一天能卖多少钱"); not 退了多少钱 (refunds)
_MONEY_MADE = re.compile(r"(卖|卖出|卖掉|销售|成交|花|花掉|消费|掏|付|赚|进账)了?(多少钱|几个钱)")
_SOLD = re.compile(r"(卖|卖出|卖掉|销售|成交|花|消费|赚)了?\s*$|\b(sold|spent|made|earned|brought in|generated)\s*$", re.I)
_PIECES = re.compile(r"(件|单|笔|个|次|人|位|名|台|units?|orders?|items?|pieces?)\s*$", re.I)


def _sold_past(question: str) -> bool:
    """A bound on money made, said with a verb and no measure ("哪些城市卖了超过20万", "customers who spent more than
    5,000 yuan"): not on a count of pieces ("卖出超过3000件")."""
    return any(_SOLD.search(question[:t.start]) and not _PIECES.search(question[t.start:t.end])
               for t in thresholds(question))


_DIVIDED = r"\s*(?:除以|除|/|÷|divided by|over)\s*(?:当[天日月周]的?|the\s+)?(?:总|total\s+)?"


def _defined(model: SemanticModel, question: str, measures: list[str], words: dict[str, list[str]]) -> list[str]:
    """A named ratio defined in the question by its parts ("转化率（成交单数除以当天总UV）", "AOV (GMV divided by
    orders)"): the ratio alone, its parts are its definition."""
    out = list(measures)
    for r in (r for r in model.ratios if r.id in measures and r.numerator in measures and r.denominator in measures):
        if any(re.search(re.escape(a) + _DIVIDED + re.escape(b), question, re.I)
               for a in words.get(r.numerator, []) for b in words.get(r.denominator, [])):
            out = [x for x in out if x not in (r.numerator, r.denominator)]
    return out


def _reciprocal(question: str) -> list[tuple[int, int]]:
    """"next to each other": no label ("other") of any dimension."""
    return [m.span() for m in re.finditer(r"\b(each other|one another)\b", question, re.I)]


def blank(question: str, spans: list[tuple[int, int]]) -> str:
    """The question with the given stretches blanked out, so words inside a name are not read as operators."""
    chars = list(question)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


def parts_of_days(model: SemanticModel, dims: Spans) -> list[tuple[int, int]]:
    """Where the question names a part of a date ("星期几", "day of the week"): no trend's grain inside."""
    return [sp for d in model.dimensions if d.part for sp in dims.hits.get(d.id, [])]


def read(model: SemanticModel, question: str, value_hits: list[dict] | None = None,
         beside: tuple[str, ...] = ()) -> Mentions:
    """What the question names on the model. `beside`: the measures a follow-up's plan already has, read as named
    beside it ("只看新用户" after the GMV: the new customers' GMV, not their count)."""
    # measures and records longest first together: "order lines" names the lines, not the orders count
    words = {**{e.id: entry_words(model, e) for e in [*model.measures, *model.ratios]},
             **{f"record:{r.id}": r.words() for r in model.records}}
    # a measure's word inside a longer dimension name is the dimension's ("refund reason" is no refund count),
    # and "order … by" at the start of a request is a verb
    found = Spans.find(question, words)
    alone = found.spans()
    names = Spans.find(question, {d.id: d.words() for d in model.dimensions}).spans()  # where dimensions are named
    longer = [(s, e) for s, e in names if any(s <= a and b <= e and b - a < e - s for a, b in alone)]
    taken = longer + verbs(question) + qualifying_values(model, question, found.hits, beside)  # "新用户的订单量": no count of them
    joint = Spans.find(question, words, taken)
    labelled = label_spans(model, question)
    if out := left_out_words(question, joint.spans(), labelled):
        joint = Spans.find(question, words, taken + out)  # "excluding refunded orders": a status, no count
    metrics = Spans({k: v for k, v in joint.hits.items() if not k.startswith("record:")},
                    {k: [o for o in v if not o.startswith("record:")] for k, v in joint.others.items()
                     if not k.startswith("record:")})
    acted = apart(model, question, metrics.spans() + taken)  # "购买了手机数码的客户数"
    for mid, spans in acted.items():
        metrics.hits.setdefault(mid, []).extend(spans)
    named_whole = [sp for sp in metrics.spans() if not any(sp in v for v in acted.values())]  # 客户数: counted, no split
    values: dict[str, list[str]] = {}
    value_spans: list[tuple[int, int]] = []
    value_at: dict[str, list[tuple[int, int]]] = {}
    counted_values: list[str] = []
    # "Monday-to-Sunday weeks", "last Monday": no day of the week (read only where the model has date parts)
    dates = phrasing.dated(question) if any(d.part for d in model.dimensions) else []
    rows = phrasing.listed_records(model, question, CUES["rows_noun"], labelled)  # "退款的记录": the refunds, no status
    rows += [(s, e) for s, e in names  # "按新老客拆开": the split, not 老客
             if any(s <= a and b <= e and b - a < e - s for a, b in labelled)]
    for d in model.dimensions:
        found = Spans.find(question, label_words(d), metrics.spans() + _reciprocal(question) + rows
                           + phrasing.after_subject(question) + (dates if d.part else []))
        for code in found.ids():
            values.setdefault(d.id, []).append(code)
        value_spans += found.spans()
        value_at[d.id] = found.spans()
        if any(re.search(CUES["counted"], question[:s], re.I) for s, _ in found.spans()):
            counted_values.append(d.id)  # "how many diamond members": the members of a value are counted
    clock, hour = hours_said(question), hour_dimension(model, metrics.ids())
    if clock and hour:
        values[hour] = [f"{h:02d}" for h in clock.hours]  # "晚上8点以后", "from 8 p.m. until midnight"
        value_spans.append(clock.span)
        value_at[hour] = [clock.span]
    values = not_the_measures_own(values, model, metrics.ids())
    by_column = {(d.table, d.column): d.id for d in model.dimensions if not d.part}
    q = question.casefold()
    for hit in value_hits or []:
        did = by_column.get((hit.get("table"), hit.get("column")))
        label = str(hit.get("label") or hit.get("value") or "")
        said = label and phrasing.said_outside_fields(model, question, label)  # 商品总额: no value 商品 inside
        start = q.find(label.casefold())
        verb = any(s <= start < e for s, e in phrasing.after_subject(question))  # "did we book": no books
        if did and said and not verb and str(hit["value"]) not in values.get(did, []):
            values.setdefault(did, []).append(str(hit["value"]))
            value_spans.append((start, start + len(label)))
            value_at.setdefault(did, []).append((start, start + len(label)))
    named_at = {d: value_at.get(d, []) for d in values}
    excluded = left_out(question, named_at)  # "除了华东以外", "excluding the app channel"
    values = {d: v for d, v in values.items() if d not in the_rest(question, named_at, excluded)}  # 其他品类
    values, ranged_ids = ranged(question, model, values, value_at)  # "金卡及以上": the levels from gold up
    ranged_ids += [hour] if clock and hour and hour in values else []  # a span of hours: one filter, no split
    dim_words = {d.id: d.words() + [w for w in possessive(model, d.words())  # 城市的等级 (各商品的品类: each product's)
                                    if not re.search(r"(?:各|每一?个?)\s*" + re.escape(w), question)] for d in model.dimensions}
    inside = names  # "line items", 商品明细: the records, not the product ("items", 商品)
    own = [(s, e) for k, v in joint.hits.items() if k.startswith("record:") for s, e in v
           if any(s <= a and b <= e and b - a < e - s for a, b in inside)]
    # 按时间倒序, 平均每个客户: no split; a time phrase names no dimension (这星期, 上星期: no day of the week)
    dims = Spans.find(question, dim_words, metrics.spans() + value_spans + phrasing.spans(question) + own + dates
                      + ratios.per_counted_spans(model, question)).echoed(question)
    for did, spans in short_names(model, question, dims.spans() + metrics.spans() + value_spans + own, dims.spans()).items():
        dims.hits.setdefault(did, []).extend(spans)  # 各区: the regions
    records = Spans.find(question, {r.id: r.words() for r in model.records}, metrics.spans() + value_spans + dims.spans())
    bounded = blank(question, [(t.start, t.end) for t in thresholds(question)])
    many = (top_n(bounded) or 0) > 1 and cue("rank", bounded)  # "the top 5 tier-1 cities": five cities of the tier
    roles = dimension_roles(model, question, dims, values, value_spans, value_at, many, tuple(ranged_ids))
    named, split, counted, picked_one = roles.named, roles.split, roles.counted, roles.picked_one
    ends = {e for d in split for _, e in dims.hits.get(d, [])}  # "按城市和品类", "by channel and region": both
    ends |= {g.end() for words in GRAIN_WORDS.values() for g in re.finditer(words, question, re.I)}  # "by week and tier"
    split += [d for d in named if d not in split and any(AND.fullmatch(question[e:s]) for s, _ in dims.hits[d] for e in ends if e <= s)]
    inside = [d for d in phrasing.split_inside(question, model, named_whole, SPLIT_BEFORE) if d not in named]
    named, split = named + inside, split + inside  # "各品牌销售额"
    compare = next((k for k in ("yoy", "week", "previous") if cue(k, question)), "none")
    compare = "none" if compare == "yoy" and said_as_window(question) else compare  # "in the same quarter last year"
    by_change = "asc" if cue("fell", question) else "desc" if cue("grew", question) else None
    if by_change and compare == "none":
        compare = "previous"  # "fell the most last month": against the month before
    # "top line" is a name; "超过300单" a bound, not the top 300
    bounds = [(t.start, t.end) for t in thresholds(question)]
    every = [x.span() for x in re.finditer(r"(?<![前后])" + NUM + COUNTED + r"(?=[^，。？,.?\s]{0,6}?(各自|分别|各))", question)]  # 七个大区
    every += [x.span() for x in re.finditer(r"(?<![前后])" + NUM + COUNTED, question)  # 华东跟西南两个区: the two named
              if number(x.group(1)) == sum(e <= x.start() for _, e in value_spans) > 1]
    rank = cue("rank", blank(question, metrics.spans() + bounds + every)) or by_change is not None \
        or cue("ordered", blank(question, phrasing.spans(question)))  # "sorted by refund date": an order in time, no rank
    # "monthly average order value": monthly is a grain here; "daily traffic" names the traffic records
    bare = blank(question, metrics.spans() + records.spans() + parts_of_days(model, dims))  # "每个星期几": no week
    measure_words = {x: [question[s:e] for s, e in spans] for x, spans in metrics.hits.items()}
    measures = ratios.averaged(model, question, metrics.ids(), measure_words)  # "average spend per order"
    measures = ratios.per_unit(model, question, measures, measure_words, cue("money", question))  # "平均每单花多少钱"
    measures = ratios.own_count(model, question, measures, measure_words)  # "下单客户人均花了多少钱"
    measures = ratios.rated_rows(model, question, measures, measure_words)  # "the refund rate on … orders"
    measures, pct = (p := ratios.percent_of(model, question, measures, measure_words)), p != measures  # "as a % of sales"
    measures = _defined(model, question, measures, measure_words)  # "转化率（成交单数除以UV）": the rate alone
    if rated := part_rate(model, question, measures, values, measure_words):  # "what share of the orders paid for ended up refunded"
        (measures, states), pct = rated, True
        values, named, split = {d: v for d, v in values.items() if d != states}, \
            [d for d in named if d != states], [d for d in split if d != states]
    if cue("share", question) and not pct or rank and not split:  # "品牌销售额构成", "品牌销售额排行": the shares
        inside = [d for d in phrasing.split_inside(question, model, named_whole) if d not in named + [*values]]
        named, split = named + inside, split + inside  # and ranks are the brands' (unless a brand is named)
    kept = counting.qualified(model, measures, measure_words)  # "how many orders got cancelled"
    measure_words = {x: w for x, w in measure_words.items() if x in kept or x not in measures}
    measures = kept
    alternatives = metrics.others
    if not measures and (event := event_count(model, question, records.ids())):  # "今年上半年注册了多少人": what 注册日期 dates
        measures, measure_words = [event], {**measure_words, event: []}
    measures, alternatives = counting.with_counts(model, question, values, records.hits, measures, alternatives,
                                                  compare != "none" or cue("trend", question) or cue("share", question),
                                                  metrics.hits, excluded)
    return Mentions(
        measures=measures, alternatives=alternatives, dimensions=named, split=split, counted=counted,
        counted_values=counted_values, values=values, records=records.ids(),
        listing=cue("list", question) and (not cue("count", question)  # "who … ? their tier and order count too"
                                           or cue("who", question) and not re.search(r"\bhow many\b|多少|几", question, re.I)),
        dimension_words={d: [question[s:e] for s, e in spans] for d, spans in dims.hits.items()},
        measure_words=measure_words, grain=explicit_grain(bare), per=per_period(bare),
        compare=compare, share=cue("share", question) and not pct and not (  # "week over week, … in percent": the
            compare != "none" and not cue("share", re.sub(IN_PERCENT, " ", question, flags=re.I))),  # change, no share
        excluded=excluded, ranged=ranged_ids, share_within=ratios.share_within(question, {d: value_at.get(d, []) for d in values}, CUES["share"]), trend=cue("trend", question), rank=rank,
        limit=(top_n(blank(question, bounds)) or (1 if picked_one else None)) if rank and not also_which(question, split) else None,
        order=("asc" if cue("ascending", question) else "desc") if rank else None, judged=rank and cue("judged", question),
        by_change=by_change, via=list(dict.fromkeys(roles.via + said_routes(model, question))),
    )
