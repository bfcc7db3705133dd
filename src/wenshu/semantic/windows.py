"""A question's time window as dates, for a plan: the time-phrase resolver's bounds, evaluated.

`knowledge.time_phrases` resolves "上个月", "最近30天", "last week" to SQLite date expressions (the
business calendar lives there); evaluating them in an in-memory SQLite gives plain dates, which the
plan compiler then writes in any dialect.
"""

from __future__ import annotations

import re
from datetime import timedelta

from wenshu.knowledge import number_words
from wenshu.knowledge.named_periods import named_periods
from wenshu.knowledge.time_phrases import TimeWindow, evaluate, find_windows
from wenshu.semantic.grains import explicit_grain
from wenshu.semantic.mentions import CUES
from wenshu.semantic.plan import EARLIEST, Window
from wenshu.semantic.same_period import same_period_window
from wenshu.semantic.window_moves import moved


# "The period before" in a follow-up: the previous answer's window, one period earlier ("上周的销售额" ->
# "那前一周呢" is the week before last week, not last week again).
BEFORE = (r"前一(?:周|个?星期|个?月|天|日|个?季度|年)|(?:再?往前[推挪移]?|[更再]早(?:的|那)?)一?(?:周|个?星期|个?月|天|个?季度|年)|"
          r"\bthe (?:week|month|day|quarter|year) before\b|\b(?:a|one) (?:week|month|day|quarter|year) (?:earlier|before)\b"
          r"|\b(?:move|shift|go|step)\s+(?:it\s+|that\s+)?back\s+(?:a|one)\s+(?:week|month|day|quarter|year)\b")

# "The same time last year" in a follow-up: the previous answer's window a year earlier, not the whole of last year
A_YEAR_BEFORE = (r"去年(?:的)?(?:这个?时候|这时候|此时|这段时间|同一时间|同一?个?(?:期|天|日|周|星期|月|季度))|\b(?:this|that|the same) time (?:last|a) year\b"
                 r"|\b(?:the same|that) (?:period|month|week|quarter|days?) (?:last|a) year\b|\ba year (?:earlier|before)\b")

# the same period in a year said by name ("和前年同期比" after a window of last year): a year before it when that is
# the year said
_SAME_IN_YEAR = r"(去年|前年|上一?年)的?同(?:期|一时期|一时段|时段)"
# a window said as added to the previous one ("widen it to cover last week too", 把上周也算进去): both, as one span
_WIDEN = r"\b(?:widen|extend|expand|stretch|broaden)\b|\b(?:cover|include)\b.{0,30}\b(?:too|as well)\b" \
         r"|也(?:算进去|算上|算进来|包括|包含|加上|加进来|放进来)|连同|连上"

# a day of the previous window's week, said in a follow-up: 那周的周六, 同一个星期的星期三, "the Saturday of that week"
_DAYS_EN = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_THAT_WEEKS_DAY = re.compile(r"(?:那|同一?|当)个?(?:周|星期|礼拜)的?(?:周|星期|礼拜)([一二三四五六日天])"
                             rf"|\bthe\s+{_DAYS_EN}\s+of\s+(?:that|the same)\s+week\b|\bthat\s+week'?s\s+{_DAYS_EN}\b", re.I)
_WEEKDAY = {**{c: i for i, c in enumerate("一二三四五六")}, "日": 6, "天": 6,
            **{d: i for i, d in enumerate(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])}}


# a period over the period before, said with no window ("is app GMV up or down WoW?"): the last complete period
_OVER = {"last week": r"\bwow\b|\bweek[- ](?:over|on)[- ]week\b|周环比",
         "last month": r"\bmom\b|\bmonth[- ](?:over|on)[- ]month\b|月环比",
         "last quarter": r"\bqoq\b|\bquarter[- ](?:over|on)[- ]quarter\b|季度?环比"}


def followup_window(question: str, previous: Window | None, compare: str = "none") -> Window | None:
    """The window a follow-up asks for: one period before the previous window when it says so, else the
    period the follow-up names (None: it names none, and the previous window stays)."""
    # "WoW, against the week before": the week before is what the window is compared with, not a new window
    said = question if compare == "none" else re.sub("|".join(CUES[k] for k in ("yoy", "week", "previous")), " ",
                                                      question, flags=re.I)
    if previous is not None and (shifted := moved(said, previous)):  # "往后挪一天", "move it a week later"
        return shifted
    if previous is not None and (before := re.search(BEFORE, said, re.I)):
        if (previous.end - previous.start).days == 1 and re.search(r"天|日|day", before.group(0), re.I):
            return Window(start=previous.start - timedelta(days=1), end=previous.start)  # a Monday too: one day back
        return previous.shifted("previous")
    if previous is not None and re.search(A_YEAR_BEFORE, said, re.I):
        return previous.shifted("yoy")
    if previous is not None and (same := re.search(_SAME_IN_YEAR, said)) and \
            (year := question_window(same.group(1))) and year.start.year == previous.start.year - 1:
        return previous.shifted("yoy")
    if previous is not None and (day := _THAT_WEEKS_DAY.search(said)):  # "换成那周的周六": that week's Saturday
        k = _WEEKDAY.get(next(g for g in day.groups() if g).lower()[:3])
        monday = previous.start - timedelta(days=previous.start.weekday())
        return Window(start=monday + timedelta(days=k), end=monday + timedelta(days=k + 1))
    found = in_its_year(question, plan_window(question, compare, implied=previous is None), previous)
    if found is not None and previous is not None and re.search(_WIDEN, said, re.I) \
            and not re.search(CUES["versus"], said, re.I):  # "把去年8月的也放进来对比一下": compared, not joined
        return Window(start=min(found.start, previous.start), end=max(found.end, previous.end))
    return found


def in_its_year(question: str, found: Window | None, previous: Window | None) -> Window | None:
    """A month or quarter a follow-up names without a year ("Put September next to it", "January to March of that
    year") is in the year of the previous window when that lies in one year (last October, then September: last
    September), not the latest one up to today."""
    if found is None or previous is None or _YEAR_WORD.search(re.sub(_THAT_YEAR, " ", question)):
        return found
    windows = find_windows(question, "sqlite")
    named = windows and named_periods(windows[0].phrase)
    year, last = previous.start.year, (previous.end - timedelta(days=1)).year
    if not named or year != last or found.start.year == year or (found.end - timedelta(days=1)).year != found.start.year:
        return found
    phrase = windows[0].phrase  # said again with that year: a month still running this year is whole in that one
    return question_window(f"{phrase} {year}" if phrase.isascii() else f"{year}年{phrase}") or found


def plan_window(question: str, compare: str = "none", implied: bool = True) -> Window | None:
    """The window a plan answers for: the question's first period, not counting the one a comparison names
    ("和去年同期比" names last year only as what this period is compared with). With none named, a period over
    the period before ("WoW", "month over month", 月环比) is the last complete one, and a bare 同比 / 环比 ("销售额
    环比", "GMV YoY") is last month's, the last complete month (`implied`: a follow-up keeps its previous window
    instead)."""
    if compare == "none" and (same := same_period_window(question)) is not None:
        return same  # "the same quarter last year", compared with nothing: that quarter, whole
    said = re.sub(CUES[compare], " ", question, flags=re.I) if compare != "none" else question
    found = question_window(said)
    if found is None and compare != "none" and implied:
        period = next((p for p, words in _OVER.items() if re.search(words, question, re.I)), None)
        bare = compare in ("yoy", "previous") and not explicit_grain(question)  # "每月销售额环比": every month's
        return question_window(period or ("last month" if bare else ""))
    return found


_VERSUS = r"比|\bvs\.?\b|\bversus\b|\bcompar\w*|\bagainst\b"


def two_periods(question: str) -> str | None:
    """The comparison two named periods make when the second is the first a year or one period before
    ("今年一季度和去年一季度的GMV对比", "最近7天的销售额，和前7天比", "本周和上周的订单量对比": this week so far
    against the same days of last week); None otherwise."""
    windows = find_windows(question, "sqlite")
    if len(windows) < 2 or not re.search(_VERSUS, question[question.find(windows[0].phrase):], re.I):
        return None
    first, second = (question_window(w.phrase) for w in windows[:2])
    if first and first == second and windows[1].phrase.startswith("前"):
        return "previous"  # "最近7天…和前7天比": the seven days before
    return next((k for k in ("yoy", "previous", "week") if first and second and first.shifted(k).start == second.start
                 and (k != "week" or first.shifted(k).end == second.end)), None)  # 上周六跟上上周六: a week before


_WHOLE = r"\b(all of|whole|full|entire|complete)\b|整个|全(月|季|季度|年|周)|一整"  # said by the second period


def named_earlier(question: str, window: Window | None, compare: str) -> Window | None:
    """The earlier window the question names when the comparison's shift would not give it: "quarter to date versus
    all of last quarter", "本月至今和上个月全月比" compare with the whole of the period before, which starts where
    the shifted window does and ends later. None otherwise (the shift is what was asked)."""
    windows = find_windows(question, "sqlite")
    if window is None or compare == "none" or len(windows) < 2:
        return None
    at = question.find(windows[1].phrase)
    if not re.search(_WHOLE, question[max(0, at - 14):at + len(windows[1].phrase) + 3], re.I):
        return None  # "本月至今和上个月比": the same days of last month, as the shift reads it
    shifted, second = window.shifted(compare), question_window(windows[1].phrase)
    return second if second and second.start == shifted.start and second.end > shifted.end else None


_TO_TODAY = r"\s*(?:through|thru|to|until|till|up to|到|至)\s*(?:today|now|date|今天|今日|现在|目前)"


def question_window(question: str) -> Window | None:
    """The first time window the question names, as [start, end) dates, ending today at the latest (a
    period still running is "to date"); None when it names none."""
    windows = find_windows(question, "sqlite")
    if not windows:
        return None
    start, end = evaluate(windows[0])  # a period still running is "to date": through today
    at = question.find(windows[0].phrase)
    if at >= 0 and (re.search(_BEFORE_IT, question[:at], re.I)
                    or re.match(_BEFORE_THAT, question[at + len(windows[0].phrase):])):
        return restated(question, Window(start=EARLIEST, end=start))  # "signed up before this year", 今年以前
    tomorrow = evaluate(TimeWindow("", "date('now', '+1 day')", None))[0]
    if at >= 0 and re.match(_TO_TODAY, question[at + len(windows[0].phrase):], re.I):
        return Window(start=start, end=tomorrow)  # "this Monday through today", 上周一到今天: from its start to today
    if re.fullmatch(_SOME_WEEKS, windows[0].phrase, re.I) and not explicit_grain(question):
        return Window(start=tomorrow - (end - start), end=tomorrow)  # "近三周毛利率…": the 21 days to today
    return restated(question, Window(start=start, end=min(end, tomorrow)))


_ASIDE = re.compile(r"[（(]([^（）()]{2,40})[）)]")
_DAYS_SAID = re.compile(r"\d|[一二三四五六七八九十]\s*[月号日]|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)
_LEFT_OUT = re.compile(r"不含|不包括|不算|除了?|\b(?:excluding|not including|except|without)\b", re.I)
_YEAR_WORD = re.compile(r"今年|去年|前年|\b(?:this|last) year\b|\b(?:19|20)\d{2}\b", re.I)
_THAT_YEAR = r"\b(?:of\s+)?(?:that|the same)\s+year\b|(?:那|当|同)一?年的?"  # the previous window's year, said


def restated(question: str, window: Window) -> Window:
    """A period said again in brackets, inside the one said before them or right after it ("去年五一假期（5月1号到5号）",
    "双十一之前那十天（11月1号到10号）", "last year's Christmas Eve (the 24th of December)"): the bracketed days, in the year
    said before them when they name none; else `window`."""
    for m in _ASIDE.finditer(question):
        inner, year = m.group(1), _YEAR_WORD.findall(question[:m.start()])
        if not _DAYS_SAID.search(inner) or _LEFT_OUT.search(inner):
            continue  # "（不含本周）" leaves a period out; only days said as dates restate one
        if year and not _YEAR_WORD.search(inner):
            inner = f"{inner} {year[-1]}" if year[-1].isascii() else year[-1] + inner
        found = find_windows(inner, "sqlite")
        if not found:
            continue
        start, end = evaluate(found[0])
        said = find_windows(question[:m.start()], "sqlite")
        right_after = bool(said) and len(question[question.rfind(said[-1].phrase) + len(said[-1].phrase):m.start()].strip()) <= 6
        inside = window.start <= start and end <= window.end
        if (inside or right_after) and (start, end) != (window.start, window.end):  # "Christmas Eve (the 24th …)"
            return Window(start=start, end=end)
    return window


# N weeks said plainly, with no trend by period: the last N times seven days, today included, as "the last N days";
# the N complete weeks before this one where they are split by period or said whole (过去8个完整周, "full weeks")
_SOME_WEEKS = r"(?:最近|近|过去)\s*[两二三四五六七八九十\d]{1,3}\s*个?(?:周|星期)|(?:the\s+)?(?:last|past)\s+(?:" + number_words.PATTERN + r"|\d{1,3})\s+weeks"
_BEFORE_IT = r"\b(?:before|prior to|earlier than)\s+$"
_BEFORE_THAT = r"\s*(?:以前|之前)"
