"""Named calendar periods in a question, as SQLite date bounds: days, months, quarters and years.

- Named days (双十一, 双十二, 国庆假期, 元旦, 妇女节, 儿童节, 五一假期, 平安夜, Christmas, New Year's Eve, Valentine's Day): that year's with 今年/去年/前年 (this, last
  year) before or after them, else the latest one up to today.
- Dates: "11月11日", "Nov 11th"; day ranges: "11月1号到11号", "Nov 1-10", "between Oct 1 and Oct 7". Months: "10月", "十月份", "2025年10月", "去年10月", "October",
  "Oct 2025", "October last year", "2025-10"; month ranges: "1到10月", "1月至3月", "from January to
  March"; from a month up to today: "since January", "3月以来", "从1月到现在". Quarters: "三季度", "去年第一季度",
  "2025年Q3", "Q3 2025". Half years: "上半年", "去年下半年", "the first half of last year", "H1 2025". The first
  months of a year: "今年头三个月", "去年前两个月", "the first 3 months of this year". Years: "2025年", "in 2025", "FY2025".
  A month or quarter without a year is the latest one that has started by today (in December, "10月"
  is this year's October; in March, last year's); with a year it is that year's.
All bounds are half-open `[start, end)`; a period still running ends today (the caller's `end`).
"""

from __future__ import annotations

import re
from wenshu.knowledge.compiled import rx
from datetime import date

_YEARS = {"今年": 0, "本年": 0, "this year": 0, "去年": 1, "last year": 1, "前年": 2, "the year before last": 2}
_DAYS = [  # (words, month, day, days)
    (r"双十一|双11|光棍节|singles'? day|double 11", 11, 11, 1),
    (r"双十二|双12|double 12", 12, 12, 1),
    (r"618(?:大促|当天|购物节|那天|那一天|这天|当日)|(?<=年)的?618(?![\d.])", 6, 18, 1),
    (r"国庆(?:节)?(?:七天)?(?:长假|假期|黄金周|期间)|国庆七天|national day (?:holiday|golden week|week)", 10, 1, 7),
    (r"国庆节|国庆当天|national day", 10, 1, 1),
    (r"元旦|new year'?s day", 1, 1, 1),
    (r"圣诞节?|christmas(?: day)?", 12, 25, 1),
    (r"平安夜|christmas eve", 12, 24, 1),
    (r"跨年夜|new year'?s eve", 12, 31, 1),
    (r"(?:三八)?妇女节|三八节|(?:international\s+)?women'?s\s+day", 3, 8, 1),
    (r"(?:六一)?儿童节|children'?s\s+day", 6, 1, 1),
    (r"情人节|valentine'?s(?:\s+day)?", 2, 14, 1),
    (r"五一(?:劳动节)?(?:小?长假|假期|黄金周|期间)|(?:may\s+day|labou?r\s+day)\s+(?:holiday|golden\s+week|week)", 5, 1, 5),
    (r"(?:五一)?劳动节|五一当天|may\s+day|international\s+labou?r\s+day", 5, 1, 1),
]
_CN_MONTH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11,
             "十二": 12}
_CN_Q = {"一": 1, "二": 2, "三": 3, "四": 4}
_EN_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH_NAMES = (r"January|February|March|April|May|June|July|August|September|October|November|December"
                r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec")
_YEAR = r"(?:19|20)\d{2}"
_CN_NUM = r"(?:\d{1,2}|十[一二]?|[一二三四五六七八九])"
# a year before a Chinese period ("2025年", "去年的") and after an English one (", 2025", " last year")
_CN_YEAR = rf"(?:(?P<y>{_YEAR})\s*年\s*|(?P<yw>今年|去年|前年|本年)\s*(?:的)?\s*)?"
_EN_YEAR = rf"(?:,?\s+(?P<y2>{_YEAR})\b|\s+(?:of\s+)?(?P<yw2>this year|last year))?"
_NOT_AFTER = r"(?<![\d个上下本当每前后近到至~\-])"  # 3个月, 上个月, 每月, 近1月 are not named months

Found = list[tuple[int, int, str, str]]  # (start, end, start SQL, end SQL)


def _on(back: int, month: int, day: int) -> str:
    return f"date('now', 'start of year', '-{back} years', '+{month - 1} months', '+{day - 1} days')"


def _start(m: re.Match, month: int, day: int = 1) -> str:
    """The date in the year the match names (2025年, 去年, "last year"), else the latest one up to today."""
    said = m.groupdict()
    year, word = said.get("y") or said.get("y2"), said.get("yw") or said.get("yw2")
    if year:
        return f"date('{int(year):04d}-{month:02d}-{day:02d}')"
    if word:
        return _on(_YEARS[word.lower()], month, day)
    return f"(CASE WHEN {_on(0, month, day)} <= date('now') THEN {_on(0, month, day)} ELSE {_on(1, month, day)} END)"


def _month_of(word: str | None) -> int | None:
    if not word:
        return None
    if word.isdigit():
        return int(word) if 1 <= int(word) <= 12 else None
    return _CN_MONTH.get(word) or (_EN_MONTHS.index(word[:3].lower()) + 1 if word[:3].lower() in _EN_MONTHS else None)


def _is_verb(word: str, m: re.Match, question: str) -> bool:
    """"May I", "march on": the English words, not the months."""
    return word.lower() in ("may", "march") and (not word[0].isupper() or not question[:m.start()].strip()
                                               or rx(r"\s+(I|we|you)\b").match(question[m.end():]) is not None)


def named_days(question: str) -> Found:
    years = "|".join(re.escape(y) for y in _YEARS)
    found = []
    for words, month, day, days in _DAYS:
        pattern = rf"(?:(?P<yw>{years})(?:'s)?\s*(?:的)?\s*)?(?:{words})(?:\s+(?P<yw2>{years}))?"
        for m in rx(pattern, re.I).finditer(question):
            start = _start(m, month, day)
            found.append((m.start(), m.end(), start, f"date({start}, '+{days} days')"))
    return found


_MONTHS = [
    _CN_YEAR + _NOT_AFTER + rf"(?P<m>{_CN_NUM})\s*月?\s*(?:到|至|-|~|－|—)\s*(?P<m2>{_CN_NUM})\s*月份?",
    # two months side by side (七八月份, 7、8月, 十一、十二月): both, as a run of two (only when they follow each other)
    _CN_YEAR + _NOT_AFTER + rf"(?P<m>{_CN_NUM})\s*月?\s*(?P<pair>、)?\s*(?P<m2>{_CN_NUM})\s*月份?",
    _CN_YEAR + _NOT_AFTER + rf"(?P<m>{_CN_NUM})\s*月份?(?![\d一二三四五六七八九十]*\s*[日号])",
    rf"(?P<y>{_YEAR})\s*[-/.]\s*(?P<m>\d{{1,2}})(?![-/.\d])",
    rf"(?:\b(?:from|between)\s+)?\b(?P<m>{_MONTH_NAMES})\b\.?\s+(?:to|through|till|until|and|-)\s+"
    rf"\b(?P<m2>{_MONTH_NAMES})\b\.?" + _EN_YEAR,
    rf"\b(?:(?P<yw>this year|last year)'s\s+)?(?P<m>{_MONTH_NAMES})\b\.?" + _EN_YEAR,  # "last year's October"
    rf"\b(?P<y>{_YEAR})\s+(?P<m>{_MONTH_NAMES})\b",
]


def _months(question: str) -> Found:
    found = []
    for pattern in _MONTHS:
        for m in rx(pattern, re.I).finditer(question):
            first, last = _month_of(m.group("m")), _month_of(m.groupdict().get("m2") or m.group("m"))
            if "pair" in m.re.groupindex and (last != (first or 0) + 1 or not m.group("pair") and m.group("m").isdigit()):
                continue  # 7月和9月 are two months; "78月" none
            if first and last and first <= last and not _is_verb(m.group("m"), m, question):
                found.append((m.start(), m.end(), _start(m, first), f"date({_start(m, last)}, '+1 month')"))
    return found


_TO = r"\s*(?P<to>到|至|-|~|－|—|–|\bto\b|\bthrough\b|\btill\b|\buntil\b|\band\b)\s*"
_RANGES = (  # "11月1号到11号", "11月1日至11月15日", "Nov 1 to Nov 15", "between Oct 1 and Oct 7", "Nov 1-10"
    _CN_YEAR + rf"(?P<m>{_CN_NUM})\s*月\s*(?P<d>\d{{1,2}})\s*[日号]?" + _TO
    + rf"(?:(?P<m2>{_CN_NUM})\s*月\s*)?(?P<d2>\d{{1,2}})\s*[日号]",
    rf"\b(?P<m>{_MONTH_NAMES})\b\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?" + _TO
    + rf"(?:\b(?P<m2>{_MONTH_NAMES})\b\.?\s+)?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)" + _EN_YEAR,
)


def _ranges(question: str) -> Found:
    """Day ranges: from the first day (the latest one up to today, or of the year named) to the last, inclusive."""
    found = []
    for pattern in _RANGES:
        for m in rx(pattern, re.I).finditer(question):
            month, day = _month_of(m.group("m")), int(m.group("d"))
            last_month, last_day = _month_of(m.group("m2") or m.group("m")), int(m.group("d2"))
            if not (month and last_month and 1 <= day <= 31 and 1 <= last_day <= 31):
                continue
            if m.group("to").lower() == "and" and not rx(r"\bbetween\s+$", re.I).search(question[:m.start()]):
                continue  # "on Nov 11 and Nov 12": two days; "between Oct 1 and Oct 7": a range
            try:  # days between, counted in a year without 29 February (a range across New Year wraps)
                days = (date(2001, last_month, last_day) - date(2001, month, day)).days % 365
            except ValueError:
                continue
            start = _start(m, month, day)
            found.append((m.start(), m.end(), start, f"date({start}, '+{days + 1} days')"))
    return found


def _dates(question: str) -> Found:
    found = []
    for pattern in (_CN_YEAR + rf"(?P<m>{_CN_NUM})\s*月\s*(?P<d>\d{{1,2}})\s*[日号]",
                    rf"\b(?P<m>{_MONTH_NAMES})\b\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)" + _EN_YEAR,
                    _EN_YEARS_OWN + rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH_NAMES})\b\.?"
                    + _EN_YEAR):  # "the 14th of February", "14 Feb 2025"
        for m in rx(pattern, re.I).finditer(question):
            month, day = _month_of(m.group("m")), int(m.group("d"))
            if month and 1 <= day <= 31:
                start = _start(m, month, day)
                found.append((m.start(), m.end(), start, f"date({start}, '+1 day')"))
    return found


_EN_YEARS_OWN = r"(?:\b(?P<yw>this year|last year)'s\s+)?"  # "last year's second quarter"
_EN_Q = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}


def _quarters(question: str) -> Found:
    found = []
    for pattern in (_CN_YEAR + r"(?:第)?(?P<q>[一二三四1-4])\s*季度",
                    rf"(?:(?P<y>{_YEAR})\s*年?\s*|(?P<yw>今年|去年|前年)\s*(?:的)?\s*)?(?<![A-Za-z])Q(?P<q>[1-4])\b"
                    + _EN_YEAR,
                    _EN_YEARS_OWN + r"\b(?:the\s+)?(?P<q>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b"
                    rf"(?:\s+of\s+(?:the\s+year\b|(?P<yw2>this year|last year)|(?P<y2>{_YEAR})\b))?"):
        for m in rx(pattern, re.I).finditer(question):
            q = _CN_Q.get(m.group("q")) or _EN_Q.get(m.group("q").lower()) or int(m.group("q"))
            start = _start(m, 3 * q - 2)
            found.append((m.start(), m.end(), start, f"date({start}, '+3 months')"))
    return found


def _years(question: str) -> Found:
    found = []
    for pattern in (rf"({_YEAR})\s*(?:年|财年)(?!\s*\d)", rf"\b(?:in|during|for|of|throughout|FY)\s*({_YEAR})\b(?!\s*[-/.年]|\s*(?:yuan|元|rmb|usd|dollars?|units?|items?|orders?|customers?|people)\b)"):
        for m in rx(pattern, re.I).finditer(question):
            start = f"date('{m.group(1)}-01-01')"
            found.append((m.start(), m.end(), start, f"date({start}, '+1 year')"))
    return found


_HALVES = (_CN_YEAR + r"(?P<h>上|下)半年",
           r"\b(?:the\s+)?(?P<h>first|second)\s+half(?:\s+of\s+(?:the\s+year|(?P<yw>this year|last year)|(?P<y>"
           + _YEAR + r")))?(?:\s+(?P<yw2>this year|last year))?\b",
           rf"(?:(?P<y>{_YEAR})\s*年?\s*|(?P<yw>今年|去年|前年)\s*(?:的)?\s*)?(?<![A-Za-z])(?P<h>H[12])\b" + _EN_YEAR)
_HALF_FIRST = {"上": 1, "first": 1, "h1": 1, "下": 7, "second": 7, "h2": 7}
# the first N months of a named year: "今年头三个月", "2025年前两个月", "the first 3 months of last year"
_LEADING = (rf"(?:(?P<y>{_YEAR})\s*年\s*|(?P<yw>今年|去年|前年|本年)\s*(?:的)?\s*)(?:头|前|最初)(?P<n>\d{{1,2}}|[一二两三四五六七八九十]|十一)\s*个?月",
            r"\b(?:the\s+)?first\s+(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven)\s+months\s+of\s+"
            rf"(?:(?P<yw>this year|last year)|(?P<y>{_YEAR})|the\s+year)\b")
# the first N quarters of a named year: "去年前三个季度", "the first two quarters of this year": 3N months
_LEADING_Q = (rf"(?:(?P<y>{_YEAR})\s*年\s*|(?P<yw>今年|去年|前年|本年)\s*(?:的)?\s*)(?:头|前)(?P<n>[1-3]|[一两二三])\s*个?季度",
              r"\b(?:the\s+)?first\s+(?P<n>two|three|[23])\s+quarters\s+of\s+"
              rf"(?:(?P<yw>this year|last year)|(?P<y>{_YEAR})|the\s+year)\b")
_N = {"两": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
      "eleven": 11}
# from the start of a month up to today: "since January", "1月以来", "自3月至今"
_SINCE = (rf"\b(?:since(?:\s+the\s+(?:start|beginning)\s+of)?|from\s+the\s+(?:start|beginning)\s+of)\s+(?P<m>{_MONTH_NAMES})\b(?!\.?\s+\d{{1,2}}\b)(?!\.?\s+(?:to|through|till|until|and)\b)" + _EN_YEAR,
          _CN_YEAR + rf"(?:从|自)?{_NOT_AFTER}(?P<m>{_CN_NUM})\s*月份?(?:初)?(?:以来|至今|到现在|到今天)")


def _halves(question: str) -> Found:
    found = []
    for pattern in _HALVES:
        for m in rx(pattern, re.I).finditer(question):
            start = _start(m, _HALF_FIRST[m.group("h").lower()])
            found.append((m.start(), m.end(), start, f"date({start}, '+6 months')"))
    for patterns, months in ((_LEADING, 1), (_LEADING_Q, 3)):
        for m in (m for pattern in patterns for m in rx(pattern, re.I).finditer(question)):
            n = _N.get(m.group("n").lower()) or _month_of(m.group("n"))
            if n:
                start = _start(m, 1)
                found.append((m.start(), m.end(), start, f"date({start}, '+{n * months} months')"))
    return found


def _since(question: str) -> list[tuple[int, int, str, str | None]]:
    """From the first day of a month (the latest one that has started, or of the year named) up to today."""
    found = []
    for pattern in _SINCE:
        for m in rx(pattern, re.I).finditer(question):
            month = _month_of(m.group("m"))  # after "since", "May" is the month
            if month:
                found.append((m.start(), m.end(), _start(m, month), None))
    return found


# the Monday-to-Sunday week a day falls in: "双十一所在的那一周", "11月11日那周", "the week of Singles' Day"
_WEEK_AFTER = r"\s*(?:所在|在)?的?\s*(?:那|这|当)?一?个?(?:周|星期|礼拜)(?![一二三四五六日天1-7])(?:[（(]\s*周一到周日\s*[)）])?"
_WEEK_BEFORE = r"\b(?:the\s+)?week\s+(?:of|containing|around)\s+$"


def _weeks_of(question: str, days: Found) -> Found:
    """The week each day said as its week falls in, from its Monday to its Sunday."""
    found = []
    for start, end, first, _ in days:
        after, before = rx(_WEEK_AFTER).match(question, end), rx(_WEEK_BEFORE, re.I).search(question[:start])
        if after or before:
            monday = f"date({first}, '-6 days', 'weekday 1')"
            found.append((before.start() if before else start, after.end() if after else end, monday,
                          f"date({monday}, '+7 days')"))
    return found


_YEAR_SAID = r"今年|去年|前年|\b(?:this|last) year\b|\b(?:19|20)\d{2}\b"


def _between_days(question: str, days: Found) -> Found:
    """Two named days as the ends of a range ("双十一到双十二之间", "from Singles' Day to Christmas"): the first's
    start to the second's end."""
    found = []
    for a in days:
        for b in days:
            joined = rx(_TO + r"$", re.I).match(question[a[1]:b[0]]) if b[0] >= a[1] else None
            if joined and (joined.group("to").lower() != "and" or rx(r"\bbetween\s+$", re.I).search(question[:a[0]])):
                year = rx(r"^(?:今年|去年|前年|last year's|this year's)", re.I).match(question[a[0]:a[1]])
                same = named_days(f"{year.group(0)} {question[b[0]:b[1]]}") if year else []  # 去年国庆到双十一: that year's
                found.append((a[0], b[1], a[2], same[0][3] if same and not rx(_YEAR_SAID, re.I).search(question[b[0]:b[1]]) else b[3]))
    return found


def named_periods(question: str) -> Found:
    """Named days, months, quarters, half years and years of the question, the weeks days are said as, and periods
    from a named month up to today (end None); possibly overlapping: the caller keeps the longest at each
    position."""
    days = [f for f in named_days(question) if f[3].endswith("'+1 days')")] + _dates(question)
    return (named_days(question) + _ranges(question) + _dates(question) + _weeks_of(question, days)
            + _between_days(question, named_days(question))
            + _months(question) + _quarters(question) + _halves(question) + _since(question) + _years(question))
