"""Named calendar periods in a question, as SQLite date bounds: days, months, quarters and years.

- Named days (双十一, 双十二, 国庆假期, 元旦, Christmas): that year's with 今年/去年/前年 (this, last
  year) before or after them, else the latest one up to today.
- Dates: "11月11日", "Nov 11th". Months: "10月", "十月份", "2025年10月", "October", "Oct 2025", "2025-10". Quarters: "三季度",
  "第一季度", "2025年Q3", "Q3 2025". Years: "2025年", "in 2025", "FY2025".
  A month or quarter without a year is the latest one that has started by today (in December,
  "10月" is this year's October; in March, last year's); with a year it is that year's.
All bounds are half-open `[start, end)`; a period still running ends today (the caller's `end`).
"""

from __future__ import annotations

import re

_YEARS = {"今年": 0, "this year": 0, "去年": 1, "last year": 1, "前年": 2, "the year before last": 2}
_DAYS = [  # (words, month, day, days)
    (r"双十一|双11|光棍节|singles'? day|double 11", 11, 11, 1),
    (r"双十二|双12|double 12", 12, 12, 1),
    (r"618大促|618当天|618购物节", 6, 18, 1),
    (r"国庆(?:节)?(?:假期|黄金周|期间)|national day (?:holiday|golden week)", 10, 1, 7),
    (r"国庆节|国庆当天|national day", 10, 1, 1),
    (r"元旦|new year'?s day", 1, 1, 1),
    (r"圣诞节?|christmas(?: day)?", 12, 25, 1),
]
_CN_MONTH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11,
             "十二": 12}
_EN_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_EN_MONTH = (r"\b(January|February|March|April|May|June|July|August|September|October|November|December"
             r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?")
_YEAR = r"((?:19|20)\d{2})"
_CN_NUM = r"(\d{1,2}|十[一二]?|[一二三四五六七八九])"
_CN_Q = {"一": 1, "二": 2, "三": 3, "四": 4}

Found = list[tuple[int, int, str, str]]  # (start, end, start SQL, end SQL)


def _on(back: int, month: int, day: int) -> str:
    return f"date('now', 'start of year', '-{back} years', '+{month - 1} months', '+{day - 1} days')"


def _latest(month: int, day: int = 1) -> str:
    """The latest such date that is not after today."""
    return f"(CASE WHEN {_on(0, month, day)} <= date('now') THEN {_on(0, month, day)} ELSE {_on(1, month, day)} END)"


def _start(year: str | None, month: int, day: int = 1) -> str:
    return f"date('{int(year):04d}-{month:02d}-{day:02d}')" if year else _latest(month, day)


def _month_of(word: str) -> int | None:
    if word.isdigit():
        return int(word) if 1 <= int(word) <= 12 else None
    return _CN_MONTH.get(word) or (_EN_MONTHS.index(word[:3].lower()) + 1 if word[:3].lower() in _EN_MONTHS else None)


def named_days(question: str) -> Found:
    years = "|".join(re.escape(y) for y in _YEARS)
    found = []
    for words, month, day, days in _DAYS:
        pattern = rf"(?:({years})(?:'s)?\s*(?:的)?\s*)?(?:{words})(?:\s+({years}))?"
        for m in re.finditer(pattern, question, flags=re.I):
            said = m.group(1) or m.group(2)
            back = _YEARS.get(said.lower()) if said else None
            start = _on(back, month, day) if back is not None else _latest(month, day)
            found.append((m.start(), m.end(), start, f"date({start}, '+{days} days')"))
    return found


def _months(question: str) -> Found:
    found = []
    patterns = [
        (rf"(?:{_YEAR}\s*年\s*)?(?<![\d个上下本当每前后近])" + _CN_NUM + r"\s*月份?(?![\d一二三四五六七八九十]*\s*[日号])", 1, 2),
        (rf"{_YEAR}\s*[-/.]\s*(\d{{1,2}})(?![-/.\d])", 1, 2),
        (rf"{_EN_MONTH}(?:,?\s+{_YEAR})?", 2, 1),
        (rf"\b{_YEAR}\s+{_EN_MONTH}", 1, 2),
    ]
    for pattern, year_group, month_group in patterns:
        for m in re.finditer(pattern, question, flags=re.I):
            word = m.group(month_group)
            if word.lower() in ("may", "march") and (not word[0].isupper() or not question[:m.start()].strip()
                                                     or re.match(r"\s+(I|we|you)\b", question[m.end():])):
                continue  # the verbs
            month = _month_of(word)
            if month:
                start = _start(m.group(year_group), month)
                found.append((m.start(), m.end(), start, f"date({start}, '+1 month')"))
    return found


def _dates(question: str) -> Found:
    found = []
    patterns = [
        (rf"(?:{_YEAR}\s*年\s*)?{_CN_NUM}\s*月\s*(\d{{1,2}})\s*[日号]", 1, 2, 3),
        (rf"{_EN_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+{_YEAR})?", 3, 1, 2),
    ]
    for pattern, year_group, month_group, day_group in patterns:
        for m in re.finditer(pattern, question, flags=re.I):
            month, day = _month_of(m.group(month_group)), int(m.group(day_group))
            if month and 1 <= day <= 31:
                start = _start(m.group(year_group), month, day)
                found.append((m.start(), m.end(), start, f"date({start}, '+1 day')"))
    return found


def _quarters(question: str) -> Found:
    found = []
    patterns = [
        (rf"(?:{_YEAR}\s*年\s*)?(?:第)?([一二三四1-4])\s*季度", 1, 2),
        (rf"(?:{_YEAR}\s*年?\s*)?(?<![A-Za-z])Q([1-4])\b", 1, 2),
        (rf"\bQ([1-4])\s*(?:of\s+)?{_YEAR}\b", 2, 1),
    ]
    for pattern, year_group, q_group in patterns:
        for m in re.finditer(pattern, question, flags=re.I):
            q = _CN_Q.get(m.group(q_group)) or int(m.group(q_group))
            start = _start(m.group(year_group), 3 * q - 2)
            found.append((m.start(), m.end(), start, f"date({start}, '+3 months')"))
    return found


def _years(question: str) -> Found:
    found = []
    for pattern in (rf"{_YEAR}\s*(?:年|财年)(?!\s*\d)", rf"\b(?:in|during|for|of|throughout|FY)\s*{_YEAR}\b(?!\s*[-/.年])"):
        for m in re.finditer(pattern, question, flags=re.I):
            start = f"date('{m.group(1)}-01-01')"
            found.append((m.start(), m.end(), start, f"date({start}, '+1 year')"))
    return found


def named_periods(question: str) -> Found:
    """Named days, months, quarters and years of the question (possibly overlapping; the caller keeps the
    longest at each position)."""
    return named_days(question) + _dates(question) + _months(question) + _quarters(question) + _years(question)
