""""The same quarter last year", 去年同月: a period said as this one's a year back. With nothing it is compared with
("each category's gross margin in the same quarter last year") it is the window, the whole period; with a
comparison said ("… against the same quarter last year", 同比) it is what the comparison reads (`cues` "yoy")."""

from __future__ import annotations

import re
from datetime import timedelta

from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.plan import Window, add_months

_SAME = re.compile(r"\b(?:the\s+)?(?:same|equivalent|corresponding|matching)\s+(?P<u>day|week|month|quarter)"
                   r"\s+(?:of\s+|in\s+)?last\s+year\b|去年(?:的)?同一?个?(?P<z>天|日|周|星期|月|季度)", re.I)
# words that compare (占比, 比例, 比重 are shares): with them the period is the comparison's, not the window
_COMPARES = re.compile(r"(?<!占)比(?![例重率])|差|增长|增幅|变化|涨|跌|高了|低了|多了|少了|\bcompar\w*|\bvs\.?|\bversus\b|\bagainst\b|\bchange"
                       r"|\bgrowth\b|\bgr[eo]w|\bincreas|\bdecreas|\byoy\b|\bup\b|\bdown\b|\bside by side\b|\bpercent"
                       r"|\bmore\b|\bless\b|\bfewer\b|\bhigher\b|\blower\b|\bbetter\b|\bworse\b|\bdiffer", re.I)
_UNIT = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "季度": "quarter"}
_THIS = {"day": "today", "week": "this week", "month": "this month", "quarter": "this quarter"}
_MONTHS = {"month": 1, "quarter": 3}


def said_as_window(question: str) -> bool:
    """The question names this period a year back and compares it with nothing."""
    return bool(_SAME.search(question)) and not _COMPARES.search(question)


def same_period_window(question: str) -> Window | None:
    """This day, week, month or quarter, whole, a year back; None unless `said_as_window`."""
    if not said_as_window(question):
        return None
    m = _SAME.search(question)
    unit = (m.group("u") or _UNIT[m.group("z")]).lower()
    start, _ = evaluate(find_windows(_THIS[unit], "sqlite")[0])
    end = add_months(start, _MONTHS[unit]) if unit in _MONTHS else start + timedelta(days=7 if unit == "week" else 1)
    return Window(start=start, end=end).shifted("yoy")
