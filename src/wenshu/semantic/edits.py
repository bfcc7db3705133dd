"""A follow-up edits the previous turn's plan instead of regenerating SQL.

"只看华东区" adds a filter, "换成按销量排" swaps the measure, "按城市拆开" adds a dimension ("换成按渠道看"
swaps it), "那这周呢" moves the window, "和去年同期比" adds a comparison, "那超过1000的呢" moves a bound, "原因那列去掉吧"
drops a list's column and "再加上手机号" adds one (the fields it names, after or out of those the list shows; a
list that showed its record's default columns starts from those).
The edits are read from the follow-up with the same `semantic.mentions` as a first question; what the
follow-up does not touch stays as it was.
A follow-up that changes nothing the plan knows returns None: free SQL answers it with the history.
"""

from __future__ import annotations

import re
from dataclasses import replace

from wenshu.semantic.bounds import is_bound, moved_totals, rebound
from wenshu.semantic.counting import asked, own_filter, rows_only
from wenshu.semantic.distinct import distinct_counts
from wenshu.semantic.fields import list_columns, named_fields
from wenshu.semantic.paths import value_filters
from wenshu.semantic.labels import label_words
from wenshu.semantic.mentions import Mentions, cue, oriented
from wenshu.semantic.money import money_instead
from wenshu.semantic.model import Record, SemanticModel
from wenshu.semantic.plan import Filter, QueryPlan, Window
from wenshu.semantic.spans import Spans

PERIOD_DAYS = {"day": 1, "week": 7, "month": 31, "quarter": 92, "year": 366}  # the longest period of each grain
ADD = r"加上|再加|还有|以及|同时|顺便|也看|也要|\balso\b|\bas well\b|\btoo\b|\badd\b|\bplus\b"
# the members a top N just listed ("units sold for each of those?", 这几个品牌的销量呢): the same members, so the
# measure that picked them stays beside the one asked
THOSE = r"这几个|这些|那几个|那些|\b(?:those|these|them)\b|\bfor each(?: one)?\s*(?:please\s*)?(?:[?.!]|$)"
SWAP = r"换成|换为|改成|改为|改按|换按|而不是|替换|instead|rather than|switch to|change to|\bswap\b|\breplace\b" \
       r"|\bnow (?:split |broken down |break (?:it |that )?down |(?:do|run|show|redo) (?:it|that|this|the same) (?:again )?)?" \
       r"(?:by|per)\b"  # "now by region", "now do it per brand": the split swapped
# a terse "what about X" naming only a dimension: X instead of the split ("那大区的呢", "what about by region?")
WHAT_ABOUT = r"(那|那么)?\s*(按|看)?\s*\w{1,8}?\s*(的|维度的|来看的)?\s*呢\s*[？?]?|(and |so )?(what|how) about (by |per |each )?[\w ]{1,30}\?*"
JOIN_IN = r"也(?!不|没)|一起|一并|\balso\b|\btoo\b|\bas well\b|\balong with\b|\btogether with\b|\bincluding\b"  # a value added
DROP_FILTERS = r"不限|所有|全部|全国|整体|\ball\b|\boverall\b|\bin total\b"
OTHERS = r"(其他|其它|别的|其余|\bother|\bthe rest of(?: the)?|\ball the other)\s*(的)?\s*"  # "其他region也列出来"
ADD_COLUMN = r"加上|再加|加一列|加个|添加|增加|补上|带上|也显示|\badd\b|\binclude\b|\balso show\b|\bshow also\b"
DROP_COLUMN = r"去掉|删掉|删除|拿掉|不要|不用|不显示|隐藏|\bdrop\b|\bremove\b|\bwithout\b|\bhide\b|\bget rid of\b|\bleave out\b"
# a filter let go of: its dimension after 不限 / every ("across every refund reason", "不限性别了"), or its value
# with a word that drops a filter ("forget the tier-1 filter", "去掉一线城市这个条件")
ANY_OF = r"(不限|不分|不管|所有的?|全部的?|任何|\bevery\b|\ball(?: the)?\b|\bany\b|\bregardless of(?: the)?\b)\s*$"
LIFT = DROP_COLUMN + r"|取消|放开|\bforget\b|\bignore\b|\bclear\b|\blift\b"
FILTER_WORD = r"\bfilters?\b|\brestrictions?\b|\bconditions?\b|筛选|限制|条件|过滤"
# the rows behind a number: "把这几单拉出来看看", "具体是哪几笔退款", "list them", "which ones?"
SHOW_ROWS = r"拉出来|列出来|列一下|列个|明细|清单|具体是?哪|是哪几|有哪些|哪几[笔单条]" \
            r"|\b(?:list|show(?: me)?|pull up|see) (?:them|those|these|the rows|the orders|the refunds)\b|\bwhich ones\b"


def edit(previous: QueryPlan, m: Mentions, window: Window | None, question: str, model: SemanticModel) -> QueryPlan | None:
    """The previous plan changed as the follow-up says, or None when it says nothing the plan knows."""
    if (rows := rows_behind(previous, m, question, model)) is not None:
        return rows
    update: dict = {}
    if m.rank and (m.limit or 0) > 1 and previous.dimensions:  # "keep the three worst" after brands ranked: a top N
        split = {c.id for d in previous.dimensions for c in model.conformed(d)}  # of the split names none of its members
        m = replace(m, values={d: v for d, v in m.values.items() if d not in split})  # ("Keep" is also a brand)
    rest, m = _others(previous, m, question, model)
    record = next((r for r in model.records if r.id == previous.records), None)
    named = distinct_counts(model, m.counted, m.measures, previous.measures)  # "how many different customers"
    if not asked(question) and rows_only(model, named, m.measure_words, previous.measures):
        # "only the orders thru app": the rows the previous measure counts, filtered; no new count ("sort by
        # orders": ranked by the previous count of those rows)
        tables = {x.table.lower() for x in model.measures if x.id in named}
        named = [x.id for x in model.measures if m.rank and x.id in previous.measures and x.agg == "count"
                 and x.table.lower() in tables][:1]
    m, named = _swapped_rows(previous, m, named, model)
    if named and not m.measure_words and cue("delta", question):
        named = []  # "算下差了几笔": the size of the change in the previous measure, no count of other rows
    if not named and re.search(SWAP, question, re.I):
        named = money_instead(model, question, previous.measures)  # "改成按金额算": the money of the same rows
    columns = edited_columns(previous, record, model, question) if record else None
    if columns is not None:  # "add the city each of those orders ships to": a column, no count, no split
        update["columns"], named, m = columns, [], replace(m, split=[], measures=[])
    if m.rank and named and set(named) <= set(previous.measures):  # "the three whose margin was highest"
        update["order_by"] = named[0]
    elif named:
        m = replace(m, measures=named)
        picked = previous.limit and previous.dimensions and not m.rank and re.search(THOSE, question, re.I)
        keep = previous.measures if (re.search(ADD, question, re.I) or picked) and not record else []
        update["measures"] = (keep + [x for x in m.measures if x not in keep])[:3]
        if re.search(SWAP, question, re.I) and set(named) & set(previous.measures) and set(named) - set(previous.measures):
            # "swap AOV for unique buyers", "把客单价换成订单量": the one it had goes, the new one takes its place
            update["measures"] = [x for x in previous.measures if x not in named] + \
                [x for x in named if x not in previous.measures]
        if previous.order_by and previous.order_by not in update["measures"]:
            update["order_by"] = None
        if record:  # "这些订单的销售额": from the list to the number
            update.update(records=None, order=None, limit=None)
            record = None
    filters = {f.dimension: f for f in previous.filters if not is_bound(model, f)}
    bounds = [f for f in previous.filters if is_bound(model, f)]  # two on one value: a range
    if gone := lifted(previous, m, question, model):
        filters = {did: f for did, f in filters.items() if did not in gone}
        m = replace(m, values={did: v for did, v in m.values.items() if did not in gone})
    elif re.search(DROP_FILTERS, question, re.I) and not m.values:
        filters = {}
    kinds = {d.id: d.kind for d in model.dimensions}
    tables = {record.table.lower()} if record else None
    joined: list[str] = []  # "男性会员也加上，放一起比" after female members: both, split when compared
    for did, values in value_filters(model, m, update.get("measures", previous.measures), tables).items():
        had = filters.pop(next((c.id for c in model.conformed(did) if c.id in filters), did), None)
        if had is not None and had.dimension == did and had.op == "in" and did not in m.excluded \
                and re.search(JOIN_IN, question, re.I) and not re.search(SWAP, question, re.I):
            values = [*had.values, *(v for v in values if v not in had.values)]
            joined += [did] * (cue("versus", question) or cue("each", question))
        filters[did] = Filter(dimension=did, op="not_in" if did in m.excluded else "in", values=values)
    totals = moved_totals(previous, question)  # "那超过300万的呢" after cities whose GMV passed 2.5 million
    if totals is not None:
        update["having"] = totals
    elif "measures" in update and previous.having:  # a bound on a measure's total goes with the measure
        update["having"] = [h for h in previous.having if h.dimension in update["measures"]]
    else:
        bounds = rebound(previous, model, m, question) or bounds  # "那超过1000的呢": the bound moves to the new number
    if [*filters.values(), *bounds] != previous.filters:
        update["filters"] = [*filters.values(), *bounds]
    if rest:  # "其他region也都列出来": the filter on one member goes, every member is shown
        filters = {did: f for did, f in filters.items() if did not in rest}
        update["filters"] = [*filters.values(), *bounds]
    split = [d for d in [*m.split, *rest, *joined] if kinds.get(d) == "category" and d not in previous.dimensions
             and d not in gone  # "across every refund reason": the whole again, not a split
             and not any(c.id != d and c.id in filters for c in model.conformed(d))]  # the twin its values filter
    alone = [d for d in m.dimensions if kinds.get(d) == "category" and d not in previous.dimensions and d not in m.values]
    terse = bool(previous.dimensions and re.fullmatch(WHAT_ABOUT, question.strip(), re.I))
    if not split and alone and terse:
        split = alone[:1]  # "那大区的呢" after categories, "what about by region?": by region instead
    swapped = terse and not rest or bool(re.search(SWAP, question, re.I))  # the others of a member: added
    if split:
        keep = [] if swapped else previous.dimensions
        update["dimensions"] = (keep + split)[-2:]
    elif not record and re.search(DROP_COLUMN, question, re.I) and \
            (gone := [d for d in m.dimensions if d in previous.dimensions]):
        update["dimensions"] = [d for d in previous.dimensions if d not in gone]  # "drop the channel split", 不按渠道分了
    earlier = next((k for k in ("yoy", "previous") if window is not None and previous.window is not None and m.compare == "none"
                    and cue("versus", question) and window == previous.window.shifted(k)), None)
    if earlier:  # "拿去年9月的放一起对比下" after September: the same window, compared with that one
        update["compare"], window = earlier, None
        update["difference"], update["growth"] = cue("delta", question), not cue("delta_unit", question)
    if window is not None and window != previous.window:
        update["window"] = window
    if m.grain and m.grain != previous.grain:
        update["grain"] = m.grain
        if not previous.grain and previous.compare != "none" and m.compare == "none":
            update["compare"] = "none"  # "再按月看看趋势" after 升了还是降了: the trend shows the change itself
        if "window" not in update and previous.window is not None and \
                (previous.window.end - previous.window.start).days <= PERIOD_DAYS[m.grain]:
            update["window"] = None  # "按月的趋势呢" after last month: every month, not the one it had
    if m.compare != "none":
        update["compare"] = m.compare
        update["difference"], update["growth"] = cue("delta", question), not cue("delta_unit", question)
    if m.share:
        update["share"] = True
        update["share_within"] = [d for d in m.share_within if d in {f.dimension for f in update.get("filters", previous.filters)}]
        if not previous.share and previous.filters and not previous.dimensions and not previous.grain:
            update["value_too"] = True  # "what percentage of all 华北 orders does that represent": that, and its share
    if m.per and m.per != previous.per:
        update["per"] = m.per
    if m.rank and (m.limit or m.order):
        ranked = update.get("order_by", previous.order_by) or update.get("measures", previous.measures)[0]
        update.update(limit=m.limit or previous.limit, order=oriented(m, model, ranked))
    if via := [r for r in m.via if r not in previous.via]:  # "only the ones who live in first-tier cities"
        update["via"] = previous.via + via
    if pinned := _pinned(previous, update, model):  # "Keep just the diamond members" after tiers by gender
        update["dimensions"] = [d for d in update.get("dimensions", previous.dimensions) if d not in pinned]
    if not update:
        return None
    return previous.model_copy(update=update)


def _pinned(previous: QueryPlan, update: dict, model: SemanticModel) -> set[str]:
    """The split's dimensions a filter this follow-up adds pins to one member: a column that would hold the
    same label on every row (a share of the whole keeps them)."""
    had = {(f.dimension, tuple(f.values)) for f in previous.filters}
    one = {c.id for f in update.get("filters", []) if f.op == "in" and len(f.values) == 1
           and (f.dimension, tuple(f.values)) not in had for c in model.conformed(f.dimension)}
    split = update.get("dimensions", previous.dimensions)
    return set() if previous.share or update.get("share") else one & set(split)


def rows_behind(previous: QueryPlan, m: Mentions, question: str, model: SemanticModel) -> QueryPlan | None:
    """After a count or a sum with no split ("上周金卡会员在app上下的、实付超过3000的订单有几笔"), the rows it was
    taken over, listed with the same filters and window ("把这几单拉出来看看"); the measure stays, so its own
    filter keeps the rows it counted (paid orders). None for anything else, and when the follow-up names a
    dimension, a value, a window word or another table's measure ("那华东有哪些城市": a split)."""
    if previous.records or previous.dimensions or previous.grain or not previous.measures \
            or not re.search(SHOW_ROWS, question, re.I) or m.values:
        return None
    me = next((x for x in model.measures if x.id == previous.measures[0]), None)
    if me is None or any(x.table.lower() != me.table.lower() for x in model.measures if x.id in m.measures):
        return None
    record = next((r for r in model.records if me is not None and r.table.lower() == me.table.lower()), None)
    named = named_fields(model, record, question) if record is not None else []
    fields = list(dict.fromkeys(f for f, _, _ in named))  # "拉个明细，要订单号、退款金额跟原因": its columns
    if record is None or (m.dimensions or m.split) and len(fields) < 2:
        return None
    own = record.table.lower() + "."
    filters = [f.model_copy(update={"dimension": f.dimension[len(own):]}) if f.dimension.lower().startswith(own) else f
               for f in previous.filters]  # a bound on the rows' own amount: a column of the list
    columns = list_columns(record, fields, named[0][1], question, None) if fields else previous.columns
    return previous.model_copy(update={"records": record.id, "measures": [me.id], "filters": filters, "columns": columns,
                                       "compare": "none", "share": False, "share_within": [], "value_too": False,
                                       "having": [], "order": None, "order_by": None, "limit": None,
                                       "difference": False, "growth": True, "per": None})


def lifted(previous: QueryPlan, m: Mentions, question: str, model: SemanticModel) -> list[str]:
    """The dimensions the previous plan filters whose filter the follow-up lets go of (ANY_OF before the
    dimension's name, or its value with LIFT and FILTER_WORD)."""
    dims = {d.id: d for d in model.dimensions}
    dropping = re.search(LIFT, question, re.I) and re.search(FILTER_WORD, question, re.I)
    out = []
    for f in previous.filters:
        d = dims.get(f.dimension)
        if d is None:
            continue
        named = Spans.find(question, {d.id: d.words()}).spans()
        kinds = [c.id for c in model.conformed(d.id)]  # "app" is also the traffic's channel
        if any(re.search(ANY_OF, question[:s], re.I) for s, _ in named) or dropping and set(kinds) & set(m.values):
            out += kinds
    return out


def _swapped_rows(previous: QueryPlan, m: Mentions, named: list[str], model: SemanticModel) -> tuple[Mentions, list[str]]:
    """"And the cancelled ones?" after unpaid orders: a count whose own filter pins the column the previous plan
    filters names other rows of the same answer (status 2 in place of 0), not a new measure."""
    dims = {d.id: d for d in model.dimensions}
    filtered = {(dims[f.dimension].table.lower(), dims[f.dimension].column.lower()): f.dimension
                for f in previous.filters if f.dimension in dims and f.op == "in"}
    values, kept = dict(m.values), []
    for x in named:
        me = next((e for e in model.measures if e.id == x and e.agg == "count"), None)
        own = own_filter(me) if me is not None else None
        if own and len(own) == 1 and (me.table.lower(), next(iter(own))) in filtered and x not in previous.measures \
                and m.measure_words.get(x):  # named by its words ("cancelled ones"), not a bare count ("各有几单")
            values.setdefault(filtered[(me.table.lower(), next(iter(own)))], sorted(next(iter(own.values()))))
        else:
            kept.append(x)
    return (replace(m, values=values), kept) if len(kept) < len(named) else (m, named)


def _others(previous: QueryPlan, m: Mentions, question: str, model: SemanticModel) -> tuple[list[str], Mentions]:
    """The dimensions the previous plan filters that the follow-up asks for the other members of ("其他region也都
    列出来", "what about the other regions?"), and the mentions without "other" read as a value (其他 is also a
    city tier's label)."""
    dims = {d.id: d for d in model.dimensions}
    said, rest = set(), []
    for f in previous.filters:
        d = dims.get(f.dimension)
        hits = [h for w in (d.words() if d else []) if w and (h := re.search(OTHERS + re.escape(w), question, re.I))]
        if hits and f.op == "in":
            rest.append(d.id)
            said |= {h.group(1).casefold() for h in hits}
    if not said:
        return [], m
    values = {did: kept for did, codes in m.values.items()
              if (kept := [c for c in codes if not {w.casefold() for w in label_words(dims[did]).get(c, [])} & said])}
    return rest, replace(m, values=values)


def edited_columns(previous: QueryPlan, record: Record, model: SemanticModel, question: str) -> list[str] | None:
    """The list's columns after the follow-up adds or drops named fields; None when it does neither."""
    named = list(dict.fromkeys(f for f, _, _ in named_fields(model, record, question)))
    if not named:
        return None
    current = list(previous.columns or record.columns)
    if re.search(DROP_COLUMN, question, re.I):
        kept = [c for c in current if c not in named]
        return kept if kept and kept != current else None
    if re.search(ADD_COLUMN, question, re.I):
        added = [f for f in named if f not in current]
        return current + added if added else None
    return None
