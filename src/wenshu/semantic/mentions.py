"""What a question says, read against a semantic model's own words: measures, dimensions, values, operators.

Everything here comes from the model (names, synonyms and labels of its entries), the value index's
hits and the operator words of the language itself (`CUES`: Chinese and English words for a trend,
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

from wenshu.semantic import counting, phrasing, ratios
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.grains import explicit_grain, per_period
from wenshu.semantic.labels import label_words, not_the_measures_own
from wenshu.semantic.exclusions import left_out, the_rest
from wenshu.semantic.ordinal import ranged
from wenshu.semantic.mentioned import Mentions
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import entry_words

_NUM = r"(\d+|[一二两三四五六七八九十]{1,3})"
_NOT_PERIOD = phrasing.CJK_NOT_PERIOD  # 前一个月, 一个季度: a period, not a count of members
_COUNTED = r"\s*(名|个|大|家|款|位|笔|条|单)" + _NOT_PERIOD  # 5个城市, 10笔退款, not 一个月
_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
       "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20}
_EN_NUM = r"(\d+|" + "|".join(_EN) + r")"
_CN = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
CUES = {
    "trend": r"趋势|走势|变化趋势|trend|over time",
    "yoy": r"同比|去年同一?个?(期|月|季度|周|星期|天|日|时期|时段)|去年同样的?(这|那)?(几|些)?(天|日|时间|时期|时段|周|月)|上年同期|去年的同一|year[- ](over|on)[- ]year|\byoy\b"
           r"|(same|equivalent|comparable|corresponding) (period|day|week|month|quarter|time|point|stretch|days)"
           r" (of |in )?(last|the (previous|prior)) year"
           r"|\b(a|one) year (ago|earlier|before)|\b(with|to|against|than|vs\.?|versus) (the same \w+ )?last year\b",
    # the same days a week before: "yesterday vs the same day last week", 昨天和上周同一天比, week over week
    "week": r"上周同一?(天|日|时段)|上周的同一(天|时段)|上个?星期同一?(天|日)|上周同期|上周同日"
            r"|(same|equivalent|comparable|corresponding) (day|days|weekday|period|time) (of |in )?last week"
            r"|\b(a|one) week (ago|earlier|before)\b|\bwow\b|\bweek[- ](over|on)[- ]week\b",
    "previous": r"环比|上期|上一期|比上|较上|相比上|比前一|较前一|前一(周|个?月|天|日|季度|年)相比|previous period"
                r"|上(个?月|周|星期|季度)同期|上(个?月|季度)(的)?同一?时段"
                r"|compar\w*\b.{0,40}\b(with|to|against)\s+(the\s+)?same (days?|period|time) (of |in )?(last|the (previous|prior)) (week|month|quarter)"
                r"|(和|与|跟|同|对比)(上个?月|上周|上星期|上季度|上一?年|昨天|前一天|上期|[前上]一(周|个?星期|个?月|个?季度|年))(相?比|对比)"
                r"|compar\w*\b.{0,40}\b(with|to|against)\s+(the\s+)?(last|previous|prior)\s+(day|week|month|quarter|year|period)"
                r"|\b(vs\.?|versus)\s+(the\s+)?(last|previous|prior)\s+(day|week|month|quarter|year|period)"
                r"|period[- ]over[- ]period|(day|week|month|quarter)[- ](over|on)[- ](day|week|month|quarter)"
                r"|\b(mom|wow|qoq|dod)\b"
                r"|\b(against|than|vs\.?|versus|to|with) the same (point|time|days?|period|stage) (of |in )?last (week|month|quarter)\b"
                r"|(than|versus|vs\.?|compared (to|with)|against|with) the (week|month|day|quarter|year) (before|prior)"
                r"|\b(up|down|rise|rose|grow|grew|change|changed|increase|decrease|fall|fell|drop|dropped)\b.{0,15}\bfrom the"
                r" (week|month|day|quarter|year) (before|prior)"
                r"|比再前|(比|和|跟|与|同|较)再往?前一个?(周|星期|月|天|日|季度|年)|再往?前一个?(周|星期|月|天|日|季度|年)的?(相?比|对比)"
                r"|(vs\.?|versus)\s*(上个?月|上周|上星期|上季度|昨天|前一天|上期|[前上]一(周|个?星期|个?月|个?季度|年|天))",
    "share": r"占比|份额|比重|构成|占.{0,6}(比例|百分比|百分之几|几成)|占[^，。？,.?多少]{0,6}多少(?!钱)|\bshares?\b|percentage of|proportion|what percent"
             r"|\bwhat % of\b|% of (the )?total"
             r"|\bas (a )?percentages?\b|\bpercentage (split|breakdown|mix)\b|\b(in|as) percent(age)?( terms)?\b"
             r"|\b(and|with|plus) (the |a |their |its )?percent(age)?s?\b(?! (change|growth|increase|decrease|drop|rise))"
             r"|\b(each|every) \w+(?:'s|’s) (percentage|percent|share|fraction)\b|\bwhat fraction\b|\bfraction of\b"
             r"|\bslices?\b|\baccount(s|ed)? for\b|\bcontribut(e|es|ed|ion|ions)\b|\bmix\b|\bmakes? up\b",
    "rank": r"前\s*" + _NUM + r"\s*(名|个|位|家|款|大|的|是|$)" + _NOT_PERIOD + "|" + _NUM + _COUNTED
            + r"|top\s*\d+|bottom\s*\d+|最(高|低|多|少|大|小|好|差)"
            r"|排名|排行|垫底|拖后腿|(?<!at )\bmost(?! recent\b)|(?<!at )\b(highest|lowest|least|fewest|top|bottom|rank|ranked|best|worst|largest|smallest"
            r"|biggest|strongest|weakest|thinnest|slimmest|poorest|cheapest|top-selling|best-selling)\b",  # "at least one": a condition
    # an order said without a cut: "highest first", 从高到低 (every member, sorted)
    "ordered": r"从(高|大|多)到(低|小|少)|从(低|小|少)到(高|大|多)|降序|升序|\b(descending|ascending)\b"
               r"|\b(highest|largest|biggest|most|lowest|smallest|least|fewest|cheapest|priciest|(most|least) expensive)"
               r"\s+(first|on top|at the top)\b",
    "ascending": r"最(低|少|小|差)|倒数|垫底|拖后腿|排名靠后|从(低|小|少)到(高|大|多)|升序|\bascending\b|后\s*" + _NUM + r"\s*(名|个|位|家|款|的)"
                 r"|\b(lowest|(?<!at )least|fewest|bottom|smallest|worst|weakest|thinnest|slimmest|poorest|cheapest)\b",
    # ranked by how much a measure changed, not by its size: a fall ranks the largest fall first, a rise the largest
    # rise ("哪三个品类比上月掉得最厉害", "the regions that grew fastest year on year")
    "fell": r"(掉|跌|降|下滑|下降|减少|缩水)得?最(多|厉害|狠|快|猛)|(降|跌)幅最大|下滑最(多|快|严重)"
            r"|\b(fell|dropped|declined|decreased|shrank|slipped|slid)( the)? (most|furthest|fastest|hardest)\b"
            r"|\b(biggest|largest|steepest|sharpest|worst) (drops?|declines?|falls?|decreases?|decliners?)\b",
    "grew": r"(涨|增长|增加|上升|提升)得?最(多|快|猛)|(涨|增)幅最大|增速最(快|高)"
            r"|\b(grew|rose|increased|jumped|climbed|gained)( the)? (most|fastest|furthest)\b"
            r"|\b(biggest|largest|strongest|fastest|sharpest) (growth|increases?|gains?|jumps?|rises?|risers?)\b"
            r"|\bfastest[- ]growing\b",
    # a rank by judgement, not by size: which end is "worst" depends on the measure (`Measure.better`)
    "judged": r"最(好|差)|拖后腿|\b(best|worst|strongest|weakest|poorest|better|worse)\b",
    # the question asks for money, not a count ("how much money went back in refunds")
    # "refunds last month in yuan", "有几单，合计金额多少": the money of the rows counted
    "money": r"多少钱|(?:合计|总|一共|总共)?金额(?:是|有|一共|合计|总共)?多少|多少金额|合计金额|[了掉]的钱|\bmoney\b|\bcash\b"
             r"|\bin (?:yuan|rmb|cny)\b|\bhow much (?:\w+\s+){0,3}?(?:refund(?:ed)?|spen[dt]|paid|pay)\b",
    "list": r"哪些|有哪几|列出|列一下|列个|明细|清单|列表|详情|\blist\b|\bdetails?\b|\bwhich\b",
    "count": r"多少|几[笔单个家位]|数量|总数|合计|总共|一共|\bhow (many|much)\b|\bnumber of\b|\bcount\b|\btotal\b",
    "each": r"分别|各自|各是|各(占|贡献|有|卖|花|为|多少)|各[^，。？,.?\s各]{1,4}多少|\brespectively\b|\beach\b|\bseparately\b",
    # two values set side by side ("app vs web", "华东和华南对比"): one row per value
    "versus": r"\bvs\.?\b|\bversus\b|\bcompar\w*\b|对比|相比|比较|并排|比一比|(和|与|跟).{1,12}(比|相比|对比)"
              r"|\bside[- ]by[- ]side\b|\bnext to each other\b|\bhead[- ]to[- ]head\b|还是"
              r"|\b(which|whether|does|do|did|is|are|was|were)\b.{0,60}\bor\b",  # "does 华南 or 华北 have …"
    # the fields a list shows are attributes of its rows ("products with their brand and price")
    "attributes": r"\bwith (their|its)\b|及其|连同|以及(它们|各自)的",
    # the amount itself asked beside a share ("how many paid orders …, and what percentage", "有多少单，占比多少")
    "amount": r"\bhow (many|much)\b|(有|是)多少(?!钱)(单|笔|件|个|位|人|元|块)|几(单|笔|件|个|位)",
    # what a count counts ("多少用户", "how many customers"): the word after it is not a split
    "counted": r"(多少|(?<!哪)几)个?(位|名)?\s*$|\b(how many|number of|count of)\s+(\w+\s+)?$",
    "single": r"哪(个|一个|家|位|款|天|一天|周|一周|个月|月|年|一年|季度)|\bwhich\b"
              r"|\bwhat\s+(?!(is|are|was|were|did|does|do|percent|percentage|share|proportion|about|if)\b)[a-z]+(?<!s)\b",
}
SPLIT_BEFORE = re.compile(r"(各个?|每个?|每一个|按照?|分|不同|哪个?|哪些|哪几个|逐个|" + _NUM
                          + r"\s*[个名大家款位]|前\s*" + _NUM + r"\s*[个名大家款位]?的?)\s*$"
                          r"|\b(by|per|each|every|for each|across(?!\s+all\b)|which|what|rank|ranking|sort|compare|top\s*" + _EN_NUM + r"|(?<!-)(?!one\b)" + _EN_NUM
                          + r")\s+([\w-]+\s+)?$", re.I)  # "5 cities", "top 3 best-performing products" split; "at least one item",
# "across all channels" (the total of all) and "tier-1 cities" (a value's name) do not


_AND = re.compile(r"\s*(和|与|及|以及|、|,|，|&|\band\b|\bor\b)\s*", re.I)  # two dimensions split together
# "which Apple product", "哪个一线城市": a question word before a value and its kind asks for one row per member
WHICH_BEFORE = re.compile(r"\b(which|what)\s+(\w+\s+){1,2}$|(哪[一几]?[个位家款种名]|哪些)[^，。？,.?\s]{0,6}$", re.I)


def cue(kind: str, question: str) -> bool:
    return re.search(CUES[kind], question, re.I) is not None


def number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text.lower() in _EN:
        return _EN[text.lower()]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN.get(tens, 1) if tens else 1) * 10 + (_CN.get(ones, 0) if ones else 0)
    return _CN.get(text)


def top_n(question: str) -> int | None:
    """The N of "前N", "top N", "N个城市", "最高的5个"; None when the question names no number."""
    for pat in (r"\b(?:which|what)\s+" + _EN_NUM + r"\s+[a-z]",
                r"(?:前|后)\s*" + _NUM + r"\s*(?:名|个|位|家|款|大|的|是|$)" + _NOT_PERIOD,
                r"(?<![a-z])(?:top|bottom)\s*" + _EN_NUM, _NUM + _COUNTED,  # "订单量Top10": no word boundary
                r"\b" + _EN_NUM + r"\s+(?:most|least|highest|lowest|largest|smallest|biggest|best|worst)\b",
                r"\b(?:highest|lowest|largest|smallest|biggest|best|worst)\s+(\d{1,3}|" + "|".join(_EN) + r")\b(?!\s*%)",
                r"\b(?:the\s+)?" + _EN_NUM + r"\s+(?:\w+\s+)?(?:with|by|that|which|whose|where)\b"):
        m = re.search(pat, question, re.I)
        if m and (n := number(m.group(1))):
            return n
    return 1 if cue("single", question) and cue("rank", question) and not cue("ordered", question) else None


_ORDER_BY = re.compile(r"(?:^|[.;:,!?]\s*)(order|sort|rank)(?=(?:\s+[\w'-]+){1,5}\s+by\b)", re.I)


def oriented(m: Mentions, model: SemanticModel, measure: str | None) -> str | None:
    """The rank's direction for `measure`: "the worst refund rate" is its highest, "the worst GMV" its lowest."""
    entry = next((e for e in [*model.measures, *model.ratios] if e.id == measure), None)
    if m.order and m.judged and entry is not None and entry.better == "lower":
        return "desc" if m.order == "asc" else "asc"
    return m.order


def headlined(model: SemanticModel, m: Mentions, question: str) -> Mentions:
    """A question (not a follow-up, which keeps its plan's measure) that ranks by judgement and names no measure
    ("哪个渠道卖得最好", "which region is doing worst"): ranked by the model's headline measure."""
    if m.measures or not m.rank or not m.judged or not model.headline or m.near_measures:
        return m
    return replace(m, measures=[model.headline], measure_words={model.headline: []})


_WHOLE = re.compile(r"\bacross\s+all\s+(the\s+)?$", re.I)


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


def read(model: SemanticModel, question: str, value_hits: list[dict] | None = None) -> Mentions:
    # measures and records longest first together: "order lines" names the lines, not the orders count
    words = {**{e.id: entry_words(model, e) for e in [*model.measures, *model.ratios]},
             **{f"record:{r.id}": r.words() for r in model.records}}
    # a measure's word inside a longer dimension name is the dimension's ("refund reason" is no refund count),
    # and "order … by" at the start of a request is a verb
    alone = Spans.find(question, words).spans()
    longer = [(s, e) for s, e in Spans.find(question, {d.id: d.words() for d in model.dimensions}).spans()
              if any(s <= a and b <= e and b - a < e - s for a, b in alone)]
    joint = Spans.find(question, words, longer + [m.span(1) for m in _ORDER_BY.finditer(question)])
    metrics = Spans({k: v for k, v in joint.hits.items() if not k.startswith("record:")},
                    {k: [o for o in v if not o.startswith("record:")] for k, v in joint.others.items()
                     if not k.startswith("record:")})
    values: dict[str, list[str]] = {}
    value_spans: list[tuple[int, int]] = []
    value_at: dict[str, list[tuple[int, int]]] = {}
    counted_values: list[str] = []
    # "Monday-to-Sunday weeks", "last Monday": no day of the week (read only where the model has date parts)
    dates = phrasing.dated(question) if any(d.part for d in model.dimensions) else []
    for d in model.dimensions:
        found = Spans.find(question, label_words(d), metrics.spans() + _reciprocal(question) + (dates if d.part else []))
        for code in found.ids():
            values.setdefault(d.id, []).append(code)
        value_spans += found.spans()
        value_at[d.id] = found.spans()
        if any(re.search(CUES["counted"], question[:s], re.I) for s, _ in found.spans()):
            counted_values.append(d.id)  # "how many diamond members": the members of a value are counted
    values = not_the_measures_own(values, model, metrics.ids())
    by_column = {(d.table, d.column): d.id for d in model.dimensions if not d.part}
    q = question.casefold()
    for hit in value_hits or []:
        did = by_column.get((hit.get("table"), hit.get("column")))
        label = str(hit.get("label") or hit.get("value") or "")
        said = label and phrasing.said_outside_fields(model, question, label)  # 商品总额: no value 商品 inside
        if did and said and str(hit["value"]) not in values.get(did, []):
            values.setdefault(did, []).append(str(hit["value"]))
            start = q.find(label.casefold())
            value_spans.append((start, start + len(label)))
            value_at.setdefault(did, []).append((start, start + len(label)))
    named_at = {d: value_at.get(d, []) for d in values}
    excluded = left_out(question, named_at)  # "除了华东以外", "excluding the app channel"
    values = {d: v for d, v in values.items() if d not in the_rest(question, named_at, excluded)}  # 其他品类
    values, ranged_ids = ranged(question, model, values, value_at)  # "金卡及以上": the levels from gold up
    dim_words = {d.id: d.words() for d in model.dimensions}
    inside = Spans.find(question, dim_words).spans()  # "line items", 商品明细: the records, not the product ("items", 商品)
    own = [(s, e) for k, v in joint.hits.items() if k.startswith("record:") for s, e in v
           if any(s <= a and b <= e and b - a < e - s for a, b in inside)]
    dims = Spans.find(question, dim_words, metrics.spans() + value_spans + phrasing.spans(question) + own)  # 按时间倒序: no split
    records = Spans.find(question, {r.id: r.words() for r in model.records}, metrics.spans() + value_spans + dims.spans())
    named, split, counted = [], [], []
    if cue("each", question) or cue("versus", question):  # "北京上海广州深圳的GMV分别是多少", "app vs web"
        split += [d for d, codes in values.items() if len(codes) > 1]
    for did in dims.ids():
        after_value = all(any(e <= s and not question[e:s].strip() for _, e in value_spans) for s, _ in dims.hits[did])
        split_word = any(SPLIT_BEFORE.search(question[:s]) for s, _ in dims.hits[did])
        asked = any(WHICH_BEFORE.search(question[:s]) for s, _ in dims.hits[did])
        whole = all(_WHOLE.search(question[:s]) for s, _ in dims.hits[did])  # "across all channels": their total
        if (after_value or whole) and not asked:
            continue  # "华南大区", "tier 1 cities": the name of the value's own kind, not a split ("which Apple product" is)
        if all(re.search(CUES["counted"], question[:s], re.I) for s, _ in dims.hits[did]):
            counted.append(did)
            continue  # "新注册了多少用户": what is counted, not a split
        named.append(did)
        if split_word or asked:
            split.append(did)
    ends = {e for d in split for _, e in dims.hits.get(d, [])}  # "按城市和品类", "by channel and region": both
    split += [d for d in named if d not in split and any(_AND.fullmatch(question[e:s]) for s, _ in dims.hits[d] for e in ends if e <= s)]
    inside = [d for d in phrasing.split_inside(question, model, metrics.spans(), SPLIT_BEFORE) if d not in named]
    named, split = named + inside, split + inside  # "各品牌销售额"
    compare = next((k for k in ("yoy", "week", "previous") if cue(k, question)), "none")
    by_change = "asc" if cue("fell", question) else "desc" if cue("grew", question) else None
    if by_change and compare == "none":
        compare = "previous"  # "fell the most last month": against the month before
    # "top line" is a name; "超过300单" a bound, not the top 300
    bounds = [(t.start, t.end) for t in thresholds(question)]
    rank = cue("rank", blank(question, metrics.spans() + bounds)) or by_change is not None or cue("ordered", question)
    # "monthly average order value": monthly is a grain here; "daily traffic" names the traffic records
    bare = blank(question, metrics.spans() + records.spans() + parts_of_days(model, dims))  # "每个星期几": no week
    measure_words = {x: [question[s:e] for s, e in spans] for x, spans in metrics.hits.items()}
    measures = ratios.averaged(model, question, metrics.ids(), measure_words)  # "average spend per order"
    measures = ratios.per_unit(model, question, measures, cue("money", question))  # "平均每单花多少钱"
    measures = ratios.rated_rows(model, question, measures, measure_words)  # "the refund rate on … orders"
    measures, pct = (p := ratios.percent_of(model, question, measures, measure_words)), p != measures  # "as a % of sales"
    if cue("share", question) and not pct or rank and not split:  # "品牌销售额构成", "品牌销售额排行": the shares
        inside = [d for d in phrasing.split_inside(question, model, metrics.spans()) if d not in named + [*values]]
        named, split = named + inside, split + inside  # and ranks are the brands' (unless a brand is named)
    kept = counting.qualified(model, measures, measure_words)  # "how many orders got cancelled"
    measure_words = {x: w for x, w in measure_words.items() if x in kept or x not in measures}
    measures = kept
    alternatives = metrics.others
    measures, alternatives = counting.with_counts(model, question, values, records.hits, measures, alternatives,
                                                  compare != "none" or cue("trend", question) or cue("share", question),
                                                  metrics.hits)
    return Mentions(
        measures=measures, alternatives=alternatives, dimensions=named, split=split, counted=counted,
        counted_values=counted_values, values=values, records=records.ids(),
        listing=cue("list", question) and not cue("count", question),
        dimension_words={d: [question[s:e] for s, e in spans] for d, spans in dims.hits.items()},
        measure_words=measure_words, grain=explicit_grain(bare), per=per_period(bare),
        compare=compare, share=cue("share", question) and not pct,
        excluded=excluded, ranged=ranged_ids, share_within=ratios.share_within(question, {d: value_at.get(d, []) for d in values}, CUES["share"]), trend=cue("trend", question), rank=rank,
        limit=top_n(blank(question, bounds)) if rank else None,
        order=("asc" if cue("ascending", question) else "desc") if rank else None, judged=rank and cue("judged", question),
        by_change=by_change,
    )
