"""A count asked by the event that makes its rows, with no measure named: "今年上半年注册了多少人", "how many people
registered last month", "how many signed up". The event is what the measure's own time column is named for (注册日期,
"registration date", "sign-up date": 注册, registration, sign-up); it names the measure when it is the only count of
its table whose time column that is, so 下单 (the orders' date, shared by every count of orders) names none."""

from __future__ import annotations

import re

from wenshu.knowledge.compiled import rx
from wenshu.semantic.cues import cue
from wenshu.semantic.model import SemanticModel

_UNIT_SAID = re.compile(r"(?:多少|(?<!哪)几)\s*(?:个|位|名)?\s*([单笔件人次家款位])")
_TIME_WORDS = r"日期|时间|日|时|\s*\b(?:date|time|day|at|on)\b"


def _event_pattern(name: str) -> str | None:
    """The words that say the event a time column is named for, in any form ("registration date": registers,
    registered, registering; "sign-up date": signed up; 注册日期: 注册)."""
    stem = re.sub(_TIME_WORDS + r"$", "", name.strip(), flags=re.I).strip(" -_")
    if len(stem) < 2:
        return None
    if not stem.isascii():
        return re.escape(stem)
    words = stem.lower().replace("-", " ").split()
    if len(words) == 2 and words[1] in ("up", "in", "out", "on"):  # a phrasal verb: sign up, signed up, sign-ups
        return rf"\b{re.escape(words[0])}(?:s|ed|ing)?[\s-]?{words[1]}s?\b"
    if len(words) != 1:
        return None
    root = re.sub(r"(?:ration|ation|ment|ing|s)$", "", words[0]) if len(words[0]) > 7 else words[0]
    return rf"\b{re.escape(root)}\w*" if len(root) >= 5 else None


def event_count(model: SemanticModel, question: str, records: list[str] = ()) -> str | None:
    """The count measure the question asks by the event its time column is named for, or None. `records`: the
    records the question names; rows of another table named ("已退款的订单有多少个": orders) are what it counts."""
    if not cue("count", question):
        return None
    tables = {r.table.lower() for r in model.records if r.id in records}
    found = []
    for me in model.measures:
        if me.agg != "count" or not me.time or tables - {me.table.lower()}:
            continue
        dims = [d for d in model.dimensions if d.kind == "time" and d.table.lower() == me.table.lower()
                and d.column.lower() == me.time.lower()]
        said = [p for d in dims for w in d.words() if (p := _event_pattern(w)) and rx(p, re.I).search(question)]
        shared = [x for x in model.measures if x.agg == "count" and x.table.lower() == me.table.lower()
                  and (x.time or "").lower() == me.time.lower()]
        units = set(_UNIT_SAID.findall(question))  # "退款了的有多少单": orders, whatever dated the refund
        if said and len(shared) == 1 and (not units or me.unit in units):
            found.append(me.id)
    return found[0] if len(found) == 1 else None
