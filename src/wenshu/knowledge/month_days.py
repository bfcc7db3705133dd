"""Days of last month or this month said by their dates: one day (本月1号, 上个月15号那天, "the 1st of this month",
"last month's 15th"), a run of days (上个月16号到25号, 上月16日至月底, 本月1号到今天, "the 16th to the 25th of last month",
"from the 16th of last month to its final day"); the first or last N days are `knowledge.edge_days`'. Read by
`knowledge.time_phrases` with the other relative periods; a month named by its number (11月16号) is
`knowledge.named_periods`'."""

from __future__ import annotations

import re

from wenshu.knowledge.number_words import number
from wenshu.knowledge.compiled import rx

Found = list[tuple[int, int, str, str | None]]  # (start, end, SQL start, SQL end) of each phrase

# the months a day is counted in, and how far back each starts
_ZH_MONTHS = {r"上个?月|上一个月": ", '-1 month'", r"本月|这个?月|当月": ""}
_EN_MONTHS = {r"last\s+month|the\s+previous\s+month|the\s+prior\s+month": ", '-1 month'",
              r"this\s+month|the\s+current\s+month": ""}
_ZH_DAY = r"(\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])\s*(?:号|日)"
_ZH_TO = r"\s*(?:到|至|-|~|－|—|–)\s*"
_ZH_END = r"(?P<end>月底|月末|底|最后一天)|(?P<now>今天|今日|现在|目前|当前)"
_EN_DAY = r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)"
_EN_TO = r"\s+(?:to|through|till|until|and)\s+|\s*-\s*"
_EN_END = r"(?P<end>(?:its|the)\s+(?:final|last)\s+day|the\s+end(?:\s+of\s+(?:the|that)\s+month)?|month[\s-]end)|(?P<now>today|now|date)\b"


def _patterns() -> list[tuple[str, str]]:
    out = []
    for said, shift in _ZH_MONTHS.items():
        out.append((rf"(?:{said})的?{_ZH_DAY}(?:{_ZH_TO}(?:(?:{said})的?)?(?:{_ZH_DAY}|{_ZH_END}))?", shift))
    for said, shift in _EN_MONTHS.items():
        of = rf"\s+of\s+(?:{said})\b"
        out += [(rf"\b(?:from\s+|between\s+)?{_EN_DAY}{of}(?:(?:{_EN_TO})(?:{_EN_DAY}(?:{of})?|{_EN_END}))?", shift),
                (rf"\b(?:from\s+|between\s+)?{_EN_DAY}(?:{_EN_TO}){_EN_DAY}{of}", shift),
                (rf"\b(?:{said})'s\s+(\d{{1,2}})(?:st|nd|rd|th)\b", shift)]
    return out


_DAYS = _patterns()


def _start(shift: str, day: int) -> str:
    return f"date('now', 'start of month'{shift}" + (f", '+{day - 1} days')" if day > 1 else ")")


def _month_end(shift: str) -> str:
    return "date('now', 'start of month')" if shift else "date('now', 'start of month', '+1 month')"


def month_days(question: str) -> Found:
    """The days of last or this month `question` names, as SQLite date expressions [start, end)."""
    out: Found = []
    for pattern, shift in _DAYS:
        for m in rx(pattern, re.I).finditer(question):
            ends = {m.re.groupindex.get("end"), m.re.groupindex.get("now")}
            days = [d for i, g in enumerate(m.groups(), 1) if g and i not in ends and (d := number(g.strip())) is not None]
            first = days[0] if days else None
            last = days[1] if len(days) > 1 else first
            if not first or not last or not 1 <= first <= last <= 31:
                continue
            end = _month_end(shift) if m.groupdict().get("end") else None if m.groupdict().get("now") else \
                f"date('now', 'start of month'{shift}, '+{last} days')"  # to today: open, up to now
            out.append((m.start(), m.end(), _start(shift, first), end))
    return out
