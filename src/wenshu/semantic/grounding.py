"""Keep a model-filled plan to what the question says: reconcile it with `semantic.mentions`.

A small model fills the plan's fields from lists; this pure step keeps it honest against the words
the question uses (the semantic model's names, synonyms and labels, the value index's hits, and the
language's operator words):
- measures are those the question names (longest word first): one the model chose that the question
  does not name is dropped, one it names that the model missed is added; with none named, the model's
  choices that a phrase of the question is near in meaning stay (`semantic.nearby`), and with none of
  those either the plan path does not answer and free SQL does;
- a dimension stays when the question names it (not just as the word after one of its values, as in
  "华南大区") or a phrase is near it in meaning; one named after a split word (各, 按, 哪个, by, per) is
  added when the model missed it;
- filters are the values the question names, pinned to stored codes (labels, value index); a value
  the model chose that the question does not contain is dropped;
- operators follow the question's words: a grain only for a trend or an explicit 每天/monthly; 同比/
  环比, 占比 and top N only when asked for, with N and direction read from the question;
- a question that asks to see rows is a detail list (`semantic.listing`); a bound on row values
  ("实付金额超过5000元的订单有多少单") and on a total per member ("哪些城市GMV过百万": `having`) are read from
  the question's words (`semantic.bounds`); one no plan holds sends the question to free SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from wenshu.semantic.attributes import attributes
from wenshu.semantic.bounds import bound_table, carried, row_bounds
from wenshu.semantic.members import counts_keys_of, in_asked_order, listed_members
from wenshu.semantic.routes import reached
from wenshu.semantic.counting import free_count, not_asked, restated
from wenshu.semantic.distinct import counted_keys, distinct_keys, keyed_counts
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.listing import detail
from wenshu.semantic.labels import in_said_order, label_words, not_the_measures_own
from wenshu.knowledge.time_phrases import find_windows
from wenshu.semantic.mentions import Mentions, also_which, cue, oriented, read
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.money import made_by_rows, money_of_rows, money_twins
from wenshu.semantic.phrasing import averaged_over, backed, backs, said_outside_fields
from wenshu.semantic.paths import measure_tables, reachable, reaches, value_filters
from wenshu.semantic.per_group import in_each
from wenshu.semantic.plan import Filter, QueryPlan
from wenshu.semantic.ranked_by import ranked_by
from wenshu.semantic.ratios import asks_amount, share_of_whole
from wenshu.semantic.windows import two_periods
from wenshu.semantic.variants import entry_words, negated_act


@dataclass
class Grounded:
    plan: QueryPlan | None  # None: the question does not map onto the model
    reason: str = ""
    dropped: list[str] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)  # ambiguous words: which measure answered, which others


def _measures(plan: QueryPlan, m: Mentions, model: SemanticModel, question: str) -> list[str]:
    """The named measures; for a word two measures share, the one the model chose, else the first declared. When
    the question names none, the one of the model's choices stays whose names the question says most of ("新注册用户"
    for 注册用户数, "customers ... bought" for customers who bought): the model read it, and the words back it up."""
    named = [next((x for x in plan.measures if x in m.alternatives.get(n, [])), n) for n in m.measures]
    named = named or money_of_rows(m, model, question) or [x for x in plan.measures if x in m.near_measures]
    per_member = {k.id for d in m.split for k in keyed_counts(model, d)}  # buyers split by customer: 1 each
    if not named:  # of the model's choices, the one the words back (it may have added one they do not)
        entries = {e.id: e for e in [*model.measures, *model.ratios]}
        backed_choices = [x for x in plan.measures if x in entries and x not in per_member
                          and any(backs(w, question) for w in entry_words(model, entries[x]))]
        if len(backed_choices) == 1:
            return distinct_keys(backed_choices, m, model)
    named = named or counted_keys(model, m.counted, m.dimension_words, question)
    if not named and len(said := [x for x in backed(model, question) if x not in per_member]) == 1:
        named = said  # "多少个客户付款下过单": the words back one measure only (buyers), whatever the model chose
    chosen = [x for x in plan.measures if x in named]
    kept = (chosen + [x for x in named if x not in chosen])[:3]  # the model's choices first, in the question's order:
    measures = [x for x in dict.fromkeys(named) if x in kept]  # "how many, and their order value": the count first
    measures = made_by_rows(not_asked(money_twins(measures, model, question), m.measure_words, model, question,
                                      cue("money", question)), model, question, m.measure_words)
    return distinct_keys(measures, m, model)


def ambiguous(m: Mentions, measures: list[str]) -> list[dict]:
    """A note per word that names several measures: which one answered, and the others to offer."""
    notes = []
    for first, rest in m.alternatives.items():
        group = [first, *rest]
        used = next((x for x in group if x in measures), None)
        if used:
            notes.append({"kind": "ambiguous", "used": used, "others": [x for x in group if x != used]})
    return notes


def prefer_finer(plan: QueryPlan, model: SemanticModel) -> tuple[QueryPlan, list[dict]]:
    """A measure its split or filter cannot reach (GMV by category) becomes its `finer` measure, if that reaches."""
    if plan.records:
        return plan, []  # a detail list: its measures only filter and rank the record's own rows
    measures, dims, lookups = {x.id: x for x in model.measures}, {d.id: d for d in model.dimensions}, reachable(model)
    need = {dims[d].table.lower() for d in plan.dimensions if d in dims}
    need |= {dims[f.dimension].table.lower() if f.dimension in dims else bound_table(model, f) for f in plan.filters}

    def reaches(mid: str) -> bool:
        t = measures[mid].table.lower()
        return all(n == t or n in lookups.get(t, ()) for n in need)

    out, notes = [], []
    for mid in plan.measures:
        me = measures.get(mid)
        if me is not None and me.finer and not reaches(mid) and reaches(me.finer):
            out.append(me.finer)
            notes.append({"kind": "finer", "used": me.finer, "instead_of": mid})
        else:
            out.append(mid)
    if not notes:
        return plan, []
    swap = dict(zip(plan.measures, out))
    order_by = swap.get(plan.order_by) if plan.order_by else None
    having = [h.model_copy(update={"dimension": swap.get(h.dimension, h.dimension)}) for h in plan.having]
    return plan.model_copy(update={"measures": out, "order_by": order_by, "having": having}), notes


def unpinned(plan: QueryPlan, model: SemanticModel) -> QueryPlan:
    """The plan without splits by a dimension filtered to one value ("drill into 华东, city by city" after "GMV by
    region"; "只看华东" after "各大区"; "app only" on a split by the traffic's channel): a column that holds one value
    is no split, and a share of it becomes the share of the filtered part; a member's rank is over all (`rank_of`)."""
    pinned = {c.id for f in plan.filters if f.op in ("in", "eq") and len(f.values) == 1 and not plan.rank_of
              for c in model.conformed(f.dimension)}
    kept = [d for d in plan.dimensions if d not in pinned]
    return plan if kept == plan.dimensions else plan.model_copy(update={"dimensions": kept})


def _filters(plan: QueryPlan, model: SemanticModel, m: Mentions, measures: list[str], question: str) -> list[Filter]:
    dims = {d.id: d for d in model.dimensions}
    out: dict[str, Filter] = {}
    for f in plan.filters:
        d = dims.get(f.dimension)
        if d is None or d.kind == "time":
            continue  # the window says the time ("last week" is no value of the order date)
        codes = {w.casefold(): c for c, words in label_words(d).items() for w in words}
        named = m.values.get(d.id, [])
        elsewhere = {v for did, vs in m.values.items() if did != d.id for v in vs}  # 上海 is a city's, no region's
        labelled = {w.casefold() for did, vs in m.values.items() if did != d.id and did in dims  # 一线城市 holds
                    for c in vs for w in label_words(dims[did]).get(c, []) if len(w) > 1}  # the tier's 一线: no city
        values = [codes.get(_bare(str(v), d.words()).casefold(), str(v)) for v in f.values]  # 华东大区: 华东
        values = [v for v in values if v in named  # not 商品 inside 商品总额, a field's word; a code is no
                  or not named and not v.strip().isdigit() and v not in elsewhere
                  and not any(w in v.casefold() for w in labelled) and said_outside_fields(model, question, v)
                  and not find_windows(v)]  # "昨天" is the window, never a region
        values = named if d.id in m.ranged and values else values  # "金卡及以上": every level from gold up
        # ("Shanghai" as written, when the value index pinned it to 上海: the stored value answers)
        if values and f.op in ("in", "not_in", "eq", "ne"):
            out[d.id] = f.model_copy(update={"values": values, "op": "not_in" if d.id in m.excluded else "in"})
    for did, values in value_filters(model, m, measures).items():
        if not {c.id for c in model.conformed(did)} & set(out):
            out[did] = Filter(dimension=did, op="not_in" if did in m.excluded else "in", values=values)
    return [f.model_copy(update={"values": in_said_order(dims[f.dimension], f.values, question)}) for f in out.values()]


def _bare(value: str, kind: list[str]) -> str:
    """A value written with its kind's name ("华东大区", "App channel"): the value alone."""
    for w in sorted((w for w in kind if w), key=len, reverse=True):
        if len(value) > len(w) and value.casefold().endswith(w.casefold()):
            return value[:-len(w)].strip()
    return value


def _reachable_twin(model: SemanticModel, did: str, measures: list[str], m: Mentions) -> str:
    """A dimension the measures cannot reach, swapped for one they reach that the same word names
    ("渠道": the orders' channel for orders, the traffic's channel for visitors); else kept as it is."""
    tables, lookups = measure_tables(model, measures), reachable(model)
    dims = {d.id: d for d in model.dimensions}
    if did not in dims or reaches(model, did, tables, lookups):
        return did
    words = [w.casefold() for w in m.dimension_words.get(did, [])]
    twin = next((d.id for d in model.dimensions if d.id != did and d.kind == dims[did].kind
                 and reaches(model, d.id, tables, lookups)
                 and any(w in x.casefold() for x in d.words() for w in words)), None)
    return twin or did


def unanswerable(model: SemanticModel, m: Mentions, question: str) -> str | None:
    """Why no plan can answer the question whatever the model fills in (None: one may): a bound no plan
    holds (`semantic.bounds`), or no measure named or backed by the question's words. Checked before the model is asked, so
    free SQL starts without waiting for a plan that grounding would drop."""
    bounded = row_bounds(model, m, question) if thresholds(question) else None
    if bounded and bounded.reason:
        return bounded.reason  # a bound on a total per member ("cities whose GMV passed a million"): no plan holds it
    if act := negated_act(model, question):
        return f"the question counts those who did not {act}: free SQL answers"
    counted = bounded is not None and (bounded.members is not None or bool(bounded.having))  # it names the measure
    if not counted and not m.measures and not m.near_measures and not money_of_rows(m, model, question) \
            and not counted_keys(model, m.counted, m.dimension_words, question) \
            and not backed(model, question):
        return "the question names none of the semantic model's measures"
    return None


def ground(plan: QueryPlan, model: SemanticModel, question: str, value_hits: list[dict] | None = None,
           mentions: Mentions | None = None) -> Grounded:
    """`plan` kept to what the question says (`mentions`: the question already read, if the caller has)."""
    m = mentions or read(model, question, value_hits)
    listed = detail(model, m, question)
    if listed is not None:
        return Grounded(listed.plan, listed.reason)
    if why := unanswerable(model, m, question):
        return Grounded(None, why)
    dropped: list[str] = []
    bounded = row_bounds(model, m, question)  # "orders over 5,000 yuan": from the words, never the model
    counting = bounded.members  # "有多少个城市成交额超过100万": the bounded measures, per member
    totals = [h.dimension for h in bounded.having]  # "spent over 3,000 yuan": the bound names the measure
    counts = {x.id for x in keyed_counts(model, counting.dimension)} if counting and counting.dimension else set()
    measures = totals + [x for x in bounded.unsaid(model, m, m.measures, question) if x not in totals and x not in counts] \
        if counting else _measures(plan, m, model, question) or totals  # counted, and what they add up to
    dropped += [f"measure {x}" for x in plan.measures if x not in measures]
    if not measures:
        return Grounded(None, "the question names none of the semantic model's measures (the plan chose "
                        + ", ".join(plan.measures) + ")", dropped)
    m = replace(m, values=not_the_measures_own(m.values, model, measures))  # "money refunded": no status filter
    filters = _filters(plan, model, m, measures, question)
    kinds = {d.id: d.kind for d in model.dimensions}
    kept = {c.id for f in filters for c in model.conformed(f.dimension)}
    lost = [d for d in m.values if kinds[d] != "time" and d not in kept]
    if lost:  # a value named that nothing can filter the measures by: never answer as if it were not said
        return Grounded(None, f"the question names a value of {lost[0]}, which the measures cannot be filtered by",
                        dropped)
    dropped += [f"filter {f.dimension}" for f in plan.filters if f.dimension not in {x.dimension for x in filters}]
    measures, bounds = bounded.unsaid(model, m, measures, question), bounded.filters
    if why := carried(model, bounds, sorted(measure_tables(model, measures))):
        return Grounded(None, why, dropped)
    measures += [h.dimension for h in bounded.having if h.dimension not in measures][:3 - len(measures)]
    if bounded.having and not m.rank and not counting:  # "退款超过2笔的客户，笔数和金额": as listed (rows: by the total)
        measures = in_asked_order(model, m, question, measures)
    filtered = {f.dimension for f in filters}
    named = [*m.dimensions, *m.near_dimensions]  # near: a phrase close in meaning backs the model's choice
    dims = [d for d in plan.dimensions if d in kinds and (d in m.split or d in named and d not in filtered
                                                          and not averaged_over(m.dimension_words.get(d, []), question))]
    dims += [d for d in m.split if d not in dims]
    if not dims and cue("each", question):  # "items listed under 50 yuan, units each one moved": by item
        own = {d.id: d.table.lower() for d in model.dimensions}
        dims = [d for d in named if kinds[d] == "category" and d not in filtered
                and any(bound_table(model, f) == own[d] for f in bounds)][:1]
    if (bounded.having or m.rank) and not m.split and not m.grain and (keyed := listed_members(model, m, question)) \
            and keyed not in dims:  # "累计实付超过5000元的钻石会员有哪些", 谁的销售额最高: the customers (with the
        dims = [keyed]  # attributes named, below: "who … 15 or more paid orders? … their member tier")
    within = [f.dimension for f in filters if m.share and f.dimension in m.share_within]  # "of all 华北 orders"
    if m.share and not dims and not bounds and not m.grain and set(filtered) <= set(within):
        dims = [d for d in named if kinds[d] != "time" and d not in filtered][:1]  # "regional contribution …, as a %"
    if not dims and not m.grain and not m.rank and not cue("combined", question):  # "华东和华南的GMV", "AOV on the
        dims = [f.dimension for f in filters if f.op == "in" and len(f.values) > 1  # App, on web and on the mini-program":
                and kinds.get(f.dimension) == "category" and f.dimension not in m.ranged][:1]  # each (金卡及以上: together)
    if not bounded.having:  # "在我们这买过东西的客户里，回购的占百分之多少": the customers are what the count counts
        dims = [d for d in dims if not counts_keys_of(model, measures, d)]
    if counting:
        dims = [counting.dimension] if counting.dimension else []
    dims = list(dict.fromkeys(_reachable_twin(model, d, measures, m) for d in dims))
    dims = [d for i, d in enumerate(dims)  # the orders' and the traffic's channel: one split, not two
            if not {c.id for c in model.conformed(d)} - {d} & set(dims[:i])]
    time_split = [d for d in dims if kinds[d] == "time"]
    dims = [d for d in dims if kinds[d] != "time"][:2]
    dims += attributes(model, dims, named, filtered, m.via)  # "客户有哪些？列出姓名和会员等级": each customer's level
    dropped += [f"dimension {d}" for d in plan.dimensions if d not in dims and d not in time_split]
    measures = free_count(model, measures, dims)  # "order count by status": all orders, not the paid ones
    grain = counting.grain if counting else m.grain or (plan.grain if m.trend else None) or ("day" if time_split else None)
    dropped += ["grain"] if plan.grain and not grain else []
    if bounded.having and not dims and not grain:
        return Grounded(None, "a bound on a total per member with no members to keep: free SQL answers", dropped)
    if m.rank and not dims and not grain:
        return Grounded(None, "a ranked list of records, not a measure by a dimension: free SQL answers", dropped)
    ranked = m.rank and bool(dims or grain)
    if groups := in_each(model, question, dims) if ranked and m.limit and not grain and not bounded.having else None:
        dims = [groups, *(d for d in dims if d != groups)]  # "每个大区最畅销的商品": the top one in each region
    share = m.share and bool(dims or grain or filters or bounds or m.compare == "none")  # a total against an earlier
    if share and not dims and (whole := share_of_whole(model, measures)):  # period "in %": its growth (each month's too)
        part = [x for x in measures if asks_amount(m.measure_words, question)  # "回头客有多少人，占…百分之几": and
                and any(r.id in whole and r.numerator == x for r in model.ratios)]  # how many
        measures, share = part + whole, False  # "what percentage of orders were cancelled": the cancellation rate
        filters = restated(model, measures, filters)
    order_by = plan.order_by if plan.order_by in measures else ranked_by(model, question, measures)  # 按金额算排前三
    compare = two_periods(question) or m.compare  # "今年一季度和去年一季度对比", 上周六跟上上周六比 (环比 said too)
    every = cue("every_ranked", question) or also_which(question, m.split)  # "Rank all of them.", "…多少？哪个最高"
    update = {
        "measures": measures, "dimensions": dims, "filters": filters + bounds, "grain": grain,
        "having": [h for h in bounded.having if h.dimension in measures], "count_members": bool(counting),
        "compare": compare, "share": share, "per": m.per if m.per != grain else None,
        "value_too": bool(share and (filters or bounds) and not dims and not grain
                          and asks_amount(m.measure_words, question)),
        "share_within": within if share else [],
        "limit": (m.limit or (None if cue("ordered", question) else plan.limit)) if ranked and not every else None,
        "limit_per": bool(groups) and not every,
        "order": oriented(m, model, order_by or measures[0]) if ranked else None,
        "order_by": order_by if ranked else None,
        "by_change": bool(m.by_change and ranked and not grain and compare != "none"),
        "difference": cue("delta", question) or bool(m.by_change and cue("by_amount", question)),  # ranked by it
        "growth": not cue("delta_unit", question), "via": reached(model, m.via, dims + [f.dimension for f in filters]),
    }
    if update["by_change"]:  # "掉得最厉害": the largest fall first, whatever the measure's better direction
        update["order"] = m.by_change
    for key, off in (("compare", "none"), ("share", False)):
        if getattr(plan, key) not in (off, update[key]):
            dropped.append(f"{key} {getattr(plan, key)}")
    dropped += ["top N"] if (plan.limit or plan.order) and not ranked else []
    return Grounded(plan.model_copy(update=update), "", dropped, ambiguous(m, measures))
