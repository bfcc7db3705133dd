"""Members said by whether they have rows: "这个季度到现在还一单没下的客户", "到现在还一单都没成交过的", "customers
who have not made a single paid purchase so far this year", "how many have already placed a paid order".

Such a clause says what the members did (or did not do) and when, not what the answer measures: it is taken out
of the question, which is then read as usual ("上个季度下过单的客户有多少个": last quarter's buyers), and it becomes a
`Presence` on the plan. Its rows are those of the count measure on the table of a record the clause names (退过款:
the refunds), of the measure a verb of selling names (一件都没卖出去: units sold), else of the model's first count
measure (its default count: the paid orders); its window is the
period said right before it (Chinese: 这个季度到现在还一单没下) or right after it ("… so far this year"), else ever.
The clause is read only where the question counts or lists members ("有多少个", "有哪些", "how many", "which") that
those rows look up (客户, customers), so "还没付款的单子" stays a status of the orders listed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wenshu.knowledge.time_phrases import find_windows
from wenshu.semantic.events import event_count
from wenshu.semantic.has_rows import member, record_member
from wenshu.semantic.labels import label_words
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.plan import Filter, Presence
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import entry_words
from wenshu.semantic.windows import question_window

_DO_ZH = r"(?:被)?(?:下过?单|买过?|购买过?|成交过?|消费过?|付过?款|支付过?|退过?款|退过?货|卖出?去?过?|售出过?|有?销量)"
_NOT_ZH = r"\s*(?:都|也)?\s*(?:从来|从)?(?:没有?|未)(?:再)?\s*"
# 下 alone only after a number of orders ("一单没下"; "销售额没有下降" is no order)
_ABSENT_ZH = r"一(?:单|次|笔|回|件|个)" + _NOT_ZH + r"(?:下过?(?![降滑跌])|" + _DO_ZH + r")|(?:任何订单)?" + _NOT_ZH + _DO_ZH \
    + r"|一(?:单|笔)(?:都|也)没有(?=[，。？！,.?!\s]|$)"  # 一单都没有: no order at all
_PRESENT_ZH = r"(?:已经|已)" + _DO_ZH + r"了?"
_DID_ZH = r"(?<![没未])(?:下过单?|买过|购买过|成交过|消费过|付过款)"  # "上个月买过东西的客户": who did, in the rest
# a word before "order" is a value the rows are filtered by ("a single paid web order"): the presence's filter
_OBJECT_EN = r"(?:\s+(?:a single|a|an|any|one|at least one|their first))?(?:\s+(?:paid|completed))?" \
             r"(?:\s+(?!(?:orders?|purchases?)\b)([\w-]+))?\s+(?:orders?|purchases?)"
_SOLD_EN = r"|\b(?:ha(?:ve|s)\s*(?:n't|not)|had\s*(?:n't|not)|did\s*(?:n't|not)|never)\s+(?:been\s+)?sold\b|\bwith no sales\b"
_DO_EN = r"(?:placed|made|completed|shipped|sent|delivered)" + _OBJECT_EN + r"|(?:bought|ordered|purchased)(?:\s+anything)?" \
         + rf"(?:{_OBJECT_EN})?"
_ABSENT_EN = r"\b(?:ha(?:ve|s)\s*(?:n't|not)|had\s*(?:n't|not)|did\s*(?:n't|not)|never)\s+(?:yet\s+|ever\s+)?" \
             r"(?:" + _DO_EN.replace("placed|made|completed", "placed|made|completed|place|make|buy|order|purchase|ship|send|deliver|had|get|got|receive|received") + ")" \
             r"|\bwith(?:out| no)(?: any)?(?: paid)? (?:orders?|purchases?)\b" + _SOLD_EN \
             + r"|\b(?:got|had|received|saw)\s+no(?:\s+paid)?\s+(?:orders?|purchases?)\b"
_PRESENT_EN = r"\b(?:ha(?:ve|s)|had)\s+(?:already\s+)?(?:" + _DO_EN + ")"
_CLAUSES = [(re.compile(p, re.I), has) for p, has in
            ((_ABSENT_ZH, False), (_PRESENT_ZH, True), (_ABSENT_EN, False), (_PRESENT_EN, True))]
# the first time members did it ("上个月首次下单的客户", "made their first-ever paid purchase"): none before the window
_FIRST = re.compile(r"第一次|首次|首单|首购|头一[次回]|\bfirst[- ]ever\b|\bfor the first time\b|\bfirst[- ]time\b"
                    r"|\b(?:their|his|her)\s+(?:very\s+)?first\b", re.I)
_FILLER_BEFORE = r"(?:到现在|到今天|到今日|截至今天|截至目前|到目前为止|为止|至今|以来|里|内|中|还|都|也|一直|，|,|\s)*"  # 这个季度到现在还 | 一单没下
_FILLER_AFTER = r"(?:\s|,|so far|yet|as of|in|during|over|within|since|the)*"  # made a purchase | so far this year
_ASKS_HOW_MANY = r"多少|几个?人|几位|有几|\bhow many\b|\bnumber of\b|\bcount\b"
_ASKS_WHICH = r"有哪些|哪些|是谁|都有谁|列出|列一下|名单|\blist\b|\bwhich\b|\bwho\b"  # the members listed
_JOINER = r"(?:、|，|,|\band\b|并且|而且|但是?|却)\s*$"


@dataclass
class Said:
    presence: list[Presence]
    rest: str  # the question without the clauses, read for everything else
    counted: str | None  # what counts the members, for a rest that names no measure ("的客户有多少"; None: a list)
    members: list[str] = field(default_factory=list)  # the tables of the members the rows are had by


def kept_members(model: SemanticModel, plan) -> list[str]:
    """The members an earlier plan counts or lists (its first measure's, or its records'), for a follow-up that
    keeps them by rows without naming them ("其中这个月还没下过单的有多少")."""
    measure = next((x for x in model.measures if plan.measures and x.id == plan.measures[0]), None)
    rec = next((r for r in model.records if r.id == plan.records), None)
    found = member(model, measure) if measure is not None else record_member(model, rec.table) if rec else None
    return [found[2].lower()] if found else []


def said_presence(model: SemanticModel, question: str, members: list[str] | None = None) -> Said | None:
    """The presences the question says, and the question without them; None when it says none. `members`: the
    tables of the members a follow-up keeps (the earlier answer's); a first question must name them."""
    how_many = re.search(_ASKS_HOW_MANY, question, re.I) is not None
    if members is None and not how_many and not re.search(_ASKS_WHICH, question, re.I):
        return None
    spans, presence, owners = [], [], []
    for pattern, has in _CLAUSES:
        for m in pattern.finditer(question):
            if any(s < m.end() and m.start() < e for s, e in spans):
                continue
            kept = _valued(model, [w for w in m.groups() if w])  # "web" in "a single paid web order"
            if kept is None:
                continue  # a word that names no value ("a single big order") is not read
            rows = _rows_measure(model, m.group(0), question)
            named = (members or _members_named(model, question, rows, m.span()) or _event_members(model, question, rows)) \
                if rows and not _of_rows(model, rows, question[m.end():]) else []
            if not named or _table(model, rows) in named:  # "只看还没付款的" after orders: a state of the rows
                continue
            owners += named
            start, end, window = _with_window(question, m.start(), m.end())
            spans.append((start, end))
            presence.append(Presence(measure=rows, has=has, window=window, filters=kept))
    for m in _FIRST.finditer(question):
        rows = _rows_measure(model, re.match(r"[^的，,。？?]{0,24}", question[m.end():]).group(0))  # 首次退款: refunds
        named = (members or _members_named(model, question, rows, m.span())) if rows and not presence else []
        if named and _table(model, rows) not in named:
            owners += named
            spans.append(m.span())
            presence.append(Presence(measure=rows, before=True))
            break
    if not presence:
        return None
    rest = question
    for start, end in sorted(spans, reverse=True):
        before, after = rest[:start], rest[end:]
        if after.lstrip().startswith("的"):  # "上个季度下过单、…的客户": the relative clause joins what it follows
            before = re.sub(_JOINER, "", before)
        rest = before.rstrip() + (" " if before and after and after[0].isascii() else "") + after.lstrip()
    did = re.search(_DID_ZH, rest) is not None or presence[0].before  # 首次下单的客户: those who did, in the window
    return Said(presence, rest, _counted(model, owners, presence[0].measure, did) if how_many else None, owners)


def _valued(model: SemanticModel, words: list[str]) -> list[Filter] | None:
    """The filters the values said inside a clause make (none said: none); None when a word names no value."""
    out = []
    for w in words:
        found = [(d.id, codes) for d in model.dimensions if d.kind != "time" and (codes := Spans.find(w, label_words(d)).ids())]
        if not found:
            return None
        out.append(Filter(dimension=found[0][0], values=found[0][1]))
    return out


def _counted(model: SemanticModel, members: list[str], rows: str, did: bool) -> str | None:
    """What counts the members when the rest names no measure: with a clause on what they did ("上个月买过东西的"),
    the distinct count of the same rows' members (the buyers); else the count of the members' own rows."""
    same = next(x for x in model.measures if x.id == rows)
    if did:  # none such (customers who were refunded): nothing counts them
        return next((x.id for x in model.measures if x.agg == "count_distinct" and x.table == same.table
                     and x.filter == same.filter and not x.at_least and (owner := member(model, x)) is not None
                     and owner[2].lower() in members), None)
    return next((x.id for t in members for x in model.measures if x.table.lower() == t
                 and x.agg == "count" and not x.expr and not x.at_least), None)


def _rows_measure(model: SemanticModel, clause: str, question: str = "") -> str | None:
    """The count measure whose rows the clause says the members have: of a record it names, else the first; a verb
    of selling (没卖出去过, "have not sold", "no sales") names the first measure whose own words say it and whose rows
    reach members the question names (units sold, for products)."""
    if sold := re.search(r"卖|售|销|\bsold\b|\bsales\b", clause, re.I):
        verb, unit = sold.group(0).lower(), re.search(r"一([件单笔个])", clause)  # 一件都没卖出去: counted in pieces
        said = [x for x in model.measures if any(verb in w.lower() for w in entry_words(model, x))
                and _members_named(model, question, x.id, (0, 0))]
        return next((x.id for x in said if unit and x.unit == unit.group(1)), None) or next((x.id for x in said), None)
    said = clause.replace("过", "")
    named = Spans.find(said, {r.id: r.words() for r in model.records}).ids()
    tables = [r.table.lower() for r in model.records if r.id in named]
    counts = [x for x in model.measures if x.agg == "count" and not x.expr and not x.at_least]
    return next((x.id for x in counts if not tables or x.table.lower() in tables), None)


def _table(model: SemanticModel, measure: str) -> str:
    return next(x.table.lower() for x in model.measures if x.id == measure)


def _of_rows(model: SemanticModel, rows: str, after: str) -> bool:
    """Whether the clause is said of the rows themselves ("还没付款的订单"): a state of them, not of members."""
    table = _table(model, rows)
    words = [w for r in model.records if r.table.lower() == table for w in r.words() if not w.isascii()]
    return bool(words) and re.match(r"\s*的?\s*(?:" + "|".join(map(re.escape, words)) + ")", after) is not None


def _members_named(model: SemanticModel, question: str, rows: str, at: tuple[int, int]) -> list[str]:
    """The tables of the members the rows look up that the question names outside the clause (客户: customers)."""
    table = _table(model, rows)
    looked_up = reachable(model).get(table, set())
    dims = {d.id: d for d in model.dimensions if d.table.lower() in looked_up and d.kind != "time"}
    outside = question[:at[0]] + " " * (at[1] - at[0]) + question[at[1]:]
    return [dims[d].table.lower() for d in Spans.find(outside, {d: x.words() for d, x in dims.items()}).ids()]


def _event_members(model: SemanticModel, question: str, rows: str) -> list[str]:
    """The members a count asked by its event holds ("people who registered …, how many haven't ordered": the
    customers registered), when the rows look them up."""
    event = event_count(model, question)
    table = next((x.table.lower() for x in model.measures if x.id == event), None)
    return [table] if table and table in reachable(model).get(_table(model, rows), set()) else []


def _with_window(question: str, start: int, end: int) -> tuple[int, int, object]:
    """The clause's extent with the period said right before it (Chinese: 这个季度到现在还一单没下) or right after
    it ("have not made a purchase so far this year"), and that period (None: ever)."""
    english, near = question[start:end].isascii(), []
    for w in find_windows(question, "sqlite"):
        for found in re.finditer(re.escape(w.phrase), question):
            at, to = found.span()
            if not english and to <= start and re.fullmatch(_FILLER_BEFORE, question[to:start]):
                near.append((at, end, w.phrase))  # the earliest: 这个月到今天还 is this month, not today
            if english and at >= end and re.fullmatch(_FILLER_AFTER, question[end:at], re.I):
                near.append((start, to, w.phrase))
    if near:
        at, to, phrase = min(near)
        return at, to, question_window(phrase)
    lead = re.search(r"(?:到现在|到目前为止|至今|还|都|也|一直|\s)*$", question[:start])
    return lead.start(), end, None
