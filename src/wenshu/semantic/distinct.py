"""Counts of distinct members: the count_distinct measures whose key looks a dimension up (buyers:
orders.customer_id -> customers), asked with no measure named ("每个会员等级各有多少个买家"), in a follow-up ("how
many different customers bought each month"), or in place of a row count of the same table ("how many distinct
customers placed a paid order")."""

from __future__ import annotations

import re

from wenshu.semantic.mentioned import Mentions
from wenshu.semantic.model import Measure, SemanticModel
from wenshu.semantic.phrasing import backs
from wenshu.semantic.variants import entry_words


def keyed_counts(model: SemanticModel, did: str) -> list[Measure]:
    """The count_distinct measures whose key looks dimension `did` up (orders.customer_id -> customers), in the
    model's order; a count of keys with several rows each (`at_least`: repeat customers) is not one of them."""
    dim = next((d for d in model.dimensions if d.id == did), None)
    if dim is None:
        return []
    keys = {r.ends()[0] for r in model.relationships if r.ends()[1][0].lower() == dim.table.lower()}
    return [x for x in model.measures if x.agg == "count_distinct" and not x.at_least and (x.table, x.expr) in keys]


def counted_keys(model: SemanticModel, counted: list[str], said_words: dict[str, list[str]], question: str) -> list[str]:
    """"每个会员等级各有多少个买家": no measure named, a dimension counted; the one count of distinct keys that
    looks that dimension up (buyers: orders.customer_id), when the model has exactly one, the word counted
    is not the name of the dimension table's own rows ("how many customers are there" counts the customers
    table) unless they are said distinct or with the counted rows ("the distinct customers with a completed
    purchase"), and the question's words back no other measure ("新注册了多少用户" says most of 新注册客户)."""
    keyed = [keyed_counts(model, did) for did in counted]
    if len(keyed) != 1 or len(keyed[0]) != 1:
        return []
    dim = next(d for d in model.dimensions if d.id == counted[0])
    rows = {w.casefold() for r in model.records if r.table.lower() == dim.table.lower() for w in r.words() if w}
    said = {w.casefold() for w in said_words.get(dim.id, [])}
    keys = [re.escape(w) for r in model.records if r.table.lower() == keyed[0][0].table.lower() for w in r.words()]
    if (said & rows or any(w.rstrip("s") in rows for w in said)) and not re.search(  # the rows counted said too
            r"\b(" + "|".join(["distinct", "unique", "different", *keys]) + r")\b|不同的?|不重复", question, re.I):
        return []
    said = [e for e in [*model.measures, *model.ratios] if any(backs(w, question) for w in entry_words(model, e))]
    return [keyed[0][0].id] if not said or keyed[0][0] in said else []  # "多少个不同的客户下过单": the buyers'


def distinct_counts(model: SemanticModel, counted: list[str], named: list[str], earlier: list[str]) -> list[str]:
    """The measures a follow-up asks with the dimensions it counts ("and how many different customers bought each
    month"): each counted dimension's count_distinct measure (on the table of the measures named, else of the
    earlier turn's), in place of a row count of the same table."""
    by_id = {x.id: x for x in model.measures}
    out = list(named)
    tables = [by_id[x].table.lower() for x in named or earlier if x in by_id]
    for did in counted:
        found = sorted(keyed_counts(model, did), key=lambda x: x.table.lower() not in tables)
        if found:
            twin = found[0]
            out = [x for x in out if not (x in by_id and by_id[x].agg == "count"
                                          and by_id[x].table.lower() == twin.table.lower())] + [twin.id]
    return list(dict.fromkeys(out))


def distinct_keys(measures: list[str], m: Mentions, model: SemanticModel) -> list[str]:
    """"How many distinct customers placed a paid order": the question counts a dimension, so a row count of
    a table is its distinct count of the key that looks that dimension up (orders.customer_id -> customers),
    when the model has such a measure with the same default filter."""
    out = list(measures)
    for did in m.counted:
        keyed = keyed_counts(model, did)
        for i, mid in enumerate(out):
            me = next((x for x in model.measures if x.id == mid and x.agg == "count"), None)
            if me is None:
                continue
            twin = next((x for x in keyed if x.table.lower() == me.table.lower() and x.filter == me.filter), None)
            if twin is not None:
                out[i] = twin.id
    return list(dict.fromkeys(out))
