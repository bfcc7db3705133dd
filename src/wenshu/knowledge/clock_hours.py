"""Hours of the day a question names as a span of clock time ("晚上8点以后", "20点到24点", "晚上10点到凌晨2点",
"from 8 p.m. until midnight", "between 9 a.m. and noon", "before 7am"): the hours a filter on an hour of the day
keeps, read from the words. A clock time said alone ("截至上午10点") bounds nothing and is not read; neither is a
length of time ("24小时", "48 hours") nor a part of the day with no time in it ("晚上").

An end is exclusive at the hour ("8点到10点": 8 and 9), inclusive when it has minutes ("until 10:30": 10 too);
a span past midnight wraps ("22:00-02:00": 22, 23, 0, 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from wenshu.knowledge import number_words
from wenshu.knowledge.number_words import number as _number

_LATE = "下午|午后|傍晚|晚上|晚间|夜里|夜间|半夜|深夜|今晚|昨晚|前晚|当晚|昨夜"  # the hours after noon: 8 is 20
_EARLY = "凌晨|清晨|早上|早晨|上午|中午"
_ZH_PART = rf"(?P<{{p}}>{_LATE}|{_EARLY})?"
_ZH_HOUR = r"(?P<{h}>\d{{1,2}}|[零一二两三四五六七八九十]{{1,3}})\s*(?:点钟?|时(?!间|候|段))(?P<{m}>半|\d{{1,2}}分?)?"
_HHMM = r"(?P<{h}>[01]?\d|2[0-4])[:：](?P<{m}>[0-5]\d)(?!\d)"
_EN_NUM = r"\d{1,2}|" + number_words.PATTERN


def _zh(side: str) -> str:
    return (_ZH_PART.format(p=f"p{side}") + r"\s*(?:" + _ZH_HOUR.format(h=f"h{side}", m=f"m{side}")
            + "|" + _HHMM.format(h=f"c{side}", m=f"n{side}") + ")")


def _en(side: str) -> str:
    return (rf"(?:(?P<h{side}>{_EN_NUM})(?::(?P<m{side}>[0-5]\d))?\s*(?:o'clock\s*)?"
            rf"(?P<p{side}>[ap]\.?\s?m\.?(?![a-z]))?|(?P<w{side}>noon|midday|midnight)"
            rf"|(?P<c{side}>[01]?\d|2[0-4]):(?P<n{side}>[0-5]\d)(?!\d))")


_ZH_RANGE = re.compile(_zh("a") + r"\s*(?:到|至|~|～|-|—|–)\s*" + _zh("b") + r"(?:之间|期间)?")
_ZH_OPEN = re.compile(_zh("a") + r"\s*(?P<way>以后|之后|以来|起|开始|后|以前|之前|前)")
_EN_RANGE = re.compile(r"\b(?:from|between)\s+" + _en("a") + r"\s*(?:to|until|till|and|through|-|–)\s*"
                       + _en("b"), re.I)
_EN_BARE = re.compile(r"(?<![\w:.])" + _en("a") + r"\s*(?:-|–|to)\s*" + _en("b"), re.I)
_EN_OPEN = re.compile(r"\b(?P<way>after|before|since|from)\s+" + _en("a") + r"(?:\s+(?:on(?:wards?)?|or later))?",
                      re.I)
_AS_OF = re.compile(r"(?:截至|截止|截止到|as of|up to|by)\s*$", re.I)


@dataclass(frozen=True)
class ClockHours:
    hours: tuple[int, ...]  # 0 .. 23, in the order of the day from the span's start
    span: tuple[int, int]


def _time(m: re.Match, side: str) -> tuple[int, int, str] | None:
    """(hour 0-24, minutes, the part of the day said: "late", "early", "" or "fixed")."""
    g = m.groupdict()
    if g.get(f"c{side}"):
        return int(g[f"c{side}"]), int(g[f"n{side}"]), "fixed"
    word = (g.get(f"w{side}") or "").lower()
    if word:
        return (24 if word == "midnight" else 12), 0, "fixed"
    if not g.get(f"h{side}") or (h := _number(g[f"h{side}"])) is None or h > 24:
        return None
    minute = g.get(f"m{side}") or ""
    mins = 30 if minute == "半" else int(minute.rstrip("分")) if minute.rstrip("分").isdigit() else 0
    part = (g.get(f"p{side}") or "").lower().replace(".", "").replace(" ", "")
    if part in ("pm",) or re.fullmatch(_LATE, part or "-"):
        noon = part in ("pm", "下午", "午后")  # 下午12点 is noon; 晚上12点 midnight
        return (h + 12 if h < 12 else 24 if h == 12 and not noon else h), mins, "late"
    if part == "am":
        return (0 if h == 12 else h), mins, "fixed"
    if part == "中午" and h < 6:
        return h + 12, mins, "fixed"
    return h, mins, "early" if part else ""


def _hours(start: int, end: int, end_mins: int) -> tuple[int, ...]:
    stop = end + (1 if end_mins else 0)
    if stop <= start:
        stop += 24
    return tuple(h % 24 for h in range(start, stop))


def hours_said(question: str) -> ClockHours | None:
    """The hours of the first span of clock time the question names, or None."""
    for pattern in (_ZH_RANGE, _EN_RANGE, _EN_BARE):
        for m in pattern.finditer(question):
            a, b = _time(m, "a"), _time(m, "b")
            if a is None or b is None or (pattern is _EN_BARE and not (m.group("pa") or m.group("pb"))):
                continue  # "3-5 items": a bare range is a clock's only with a.m. or p.m.
            if pattern is not _ZH_RANGE and not _clock(m, "a") and not _clock(m, "b"):
                continue  # "between 5 and 10": numbers, no time of day
            if not a[2] and b[2] == "late" and a[0] + 12 < b[0]:
                a = (a[0] + 12, a[1], "late")  # "from 8 to 11 p.m."
            if not b[2] and a[2] == "late" and b[0] <= 12 and b[0] + 12 > a[0]:
                b = (b[0] + 12, b[1], "late")  # "晚上8点到10点", "晚上10点到12点": to midnight
            return ClockHours(_hours(a[0] % 24, b[0], b[1]), m.span())
    for pattern in (_ZH_OPEN, _EN_OPEN):
        for m in pattern.finditer(question):
            a = _time(m, "a")
            if a is None or _AS_OF.search(question[:m.start()]) or (pattern is _EN_OPEN and not _clock(m, "a")) \
                    or (pattern is _ZH_OPEN and not a[2] and not m.group("ha").isdigit()):
                continue  # "好一点以后": a little, no one o'clock
            before = m.group("way").lower() in ("以前", "之前", "前", "before")
            hours = _hours(0, a[0], a[1]) if before else _hours(a[0] % 24, 24, 0)
            if hours:
                return ClockHours(hours, m.span())
    return None


def _clock(m: re.Match, side: str) -> bool:
    """Whether an English time is said as one ("8 p.m.", "20:00", "noon"), not as a bare number."""
    g = m.groupdict()
    return bool(g.get(f"p{side}") or g.get(f"w{side}") or g.get(f"c{side}") or g.get(f"m{side}"))
