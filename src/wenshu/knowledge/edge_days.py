"""The first or last N days of last or this month or week: 上个月前10天, 本月头两天, 上个月最后七天, 上周前三天, 上周最后两天,
"the first ten days of last month", "the last 7 days of last month", "last week's first three days". Read by
`knowledge.time_phrases` with the other relative periods (a phrase that starts at the same place and runs longer
wins: "the last 7 days of last month" is not the last 7 days)."""

from __future__ import annotations

import re

from wenshu.knowledge.number_words import EN_NUM, NUM, number
from wenshu.knowledge.compiled import rx

Found = list[tuple[int, int, str, str]]  # (start, end, SQL start, SQL end) of each phrase

# each period's words and its [start, end) in SQLite; weeks run Monday to Sunday
_PERIODS = [
    (r"上个?月|上一个月", r"last\s+month|the\s+previous\s+month", "date('now', 'start of month', '-1 month')",
     "date('now', 'start of month')"),
    (r"本月|这个?月|当月", r"this\s+month|the\s+current\s+month", "date('now', 'start of month')",
     "date('now', 'start of month', '+1 month')"),
    (r"上个?(?:周|星期)|上一周", r"last\s+week|the\s+previous\s+week", "date('now', 'weekday 0', '-13 days')",
     "date('now', 'weekday 0', '-6 days')"),
    (r"本周|这个?(?:周|星期)", r"this\s+week|the\s+current\s+week", "date('now', 'weekday 0', '-6 days')",
     "date('now', 'weekday 0', '+1 day')"),
]
_ZH_FIRST, _ZH_LAST = r"前|头|最初的?|开头的?", r"最后的?|后|末尾?的?"
_EN_FIRST, _EN_LAST = r"first|opening", r"last|final|closing"


def _patterns(zh: str, en: str) -> list[str]:
    edge = rf"(?P<first>{_ZH_FIRST})|(?P<last>{_ZH_LAST})"
    en_edge = rf"(?P<efirst>{_EN_FIRST})|(?P<elast>{_EN_LAST})"
    return [rf"(?:{zh})的?(?:{edge})\s*{NUM}\s*(?:天|日)",
            rf"\b(?:the\s+)?(?:{en_edge})\s+{EN_NUM}\s+days\s+of\s+(?:the\s+)?(?:{en})\b",
            rf"\b(?:{en})'s\s+(?:{en_edge})\s+{EN_NUM}\s+days\b"]


def edge_days(question: str) -> Found:
    """The first or last N days of a month or week `question` names, as SQLite date expressions [start, end)."""
    out: Found = []
    for zh, en, start, end in _PERIODS:
        for pattern in _patterns(zh, en):
            for m in rx(pattern, re.I).finditer(question):
                said, named = m.groupdict(), set(m.re.groupindex.values())
                n = number(next(g for i, g in enumerate(m.groups(), 1) if g and i not in named))  # the count
                if not n or not 0 < n <= 31:
                    continue
                if said.get("last") or said.get("elast"):
                    out.append((m.start(), m.end(), f"date({end}, '-{n} days')", end))
                else:
                    out.append((m.start(), m.end(), start, f"date({start}, '+{n} days')"))
    return out
