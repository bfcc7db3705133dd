"""Relative time phrases in a question ("上周", "最近30天", "last month") resolved to exact SQL bounds.

Small models get relative dates wrong more often than anything else (invalid modifiers such as
`date('now','yesterday')`, a month where a week was asked, a window copied from an example), so the
generate prompt gets the resolved window for each phrase: a half-open range `[start, end)` of SQL
date expressions that the model only has to apply to the right date column.

The business calendar (shared with the demo's examples and gold set): weeks run Monday to Sunday;
"上周 / last week" is the previous full week, "本周 / this week" this Monday to today, "上周末 / last
weekend" last week's Saturday and Sunday; "上个月" the
previous calendar month; "本月 / 今年" to date; "去年" the previous calendar year; "最近N天 / last N
days" (L30D) today and the N-1 days before (近半个月: 15); "最近N个月 / last N months" and "最近N周" the N complete months
(weeks) before the current one; quarters are calendar quarters. Named days, months, quarters and years
("双十一", "10月", "Q3 2025", "in 2025") are resolved by `knowledge.named_periods`, days of last or this month (上个月
15号, 本月1号到今天, "the 16th to the 25th of last month") by `knowledge.month_days`, the first or last N days of a
month or week (上个月前10天, 上个月最后七天, 上周前三天) by `knowledge.edge_days`.

SQLite gets date expressions (`date('now', ...)`); every other engine gets the same bounds evaluated to
dates, written as its adapter's date literals (`DATE '2026-11-01'`, `toDate('2026-11-01')`).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import date

from wenshu.catalog import Catalog
from wenshu.engines.registry import adapter_for
from wenshu.knowledge import number_words
from wenshu.knowledge.edge_days import edge_days
from wenshu.knowledge.month_days import month_days
from wenshu.knowledge.named_periods import named_periods
from wenshu.knowledge.compiled import rx

_NUM, _EN_NUM, _number = number_words.NUM, number_words.EN_NUM, number_words.number
_Q_START = "date('now', 'start of month', '-' || ((CAST(strftime('%m', 'now') AS INTEGER) - 1) % 3) || ' months')"


@dataclass(frozen=True)
class TimeWindow:
    phrase: str  # as written in the question
    start: str  # SQL expression, inclusive
    end: str | None  # SQL expression, exclusive; None = up to now

    def condition(self, column: str = "<date column>") -> str:
        cond = f"{column} >= {self.start}"
        return cond + (f" AND {column} < {self.end}" if self.end else "")


def _days(n: int) -> tuple[str, None]:
    return (f"date('now', '-{n - 1} days')" if n > 1 else "date('now')"), None


def _months(n: int) -> tuple[str, str]:
    return f"date('now', 'start of month', '-{n} months')", "date('now', 'start of month')"


def _weeks(n: int) -> tuple[str, str]:
    return f"date('now', 'weekday 0', '-{7 * n + 6} days')", "date('now', 'weekday 0', '-6 days')"


def _quarters(n: int) -> tuple[str, str]:
    return f"date({_Q_START}, '-{3 * n} months')", _Q_START


# (pattern, bounds) for fixed phrases; the first match at a position wins, longer phrases first.
_TD = r"[\s-]+to[\s-]+date\b"  # "year to date", "year-to-date"
_FULL = r"\b(?:the\s+)?(?:last|latest|previous|prior|most recent)\s+(?:full|complete|whole|finished|closed)\s+"
_THE_ONE_BEFORE = r"\bthe %s before (?:this one|this|the current one)\b"  # "in the quarter before this one"
_SINCE = r"(?:\bsince|\bfrom)\s+(?:the\s+)?(?:start|beginning)\s+of\s+"
_TO_NOW = r"(?:(?:到|至)(?:今天|现在|目前|今日|当前)(?:为止)?|至今)"  # 这星期到今天: this week to date, one period
_LAST_HALF = r"\b(?:the\s+)?(?:last|past|previous|prior)\s+(?:half[\s-]year|half\s+a\s+year)\b"
_FIXED: list[tuple[str, tuple[str, str | None]]] = [
    (r"今天|今日|今晚|\btoday\b|\btonight\b", ("date('now')", "date('now', '+1 day')")),  # 今晚: this evening's day
    (r"昨天|昨日|昨晚|昨夜|\byesterday\b|\blast night\b", ("date('now', '-1 day')", "date('now')")),
    (r"(?<!大)前天|(?<![大之以])前晚|\bthe day before yesterday\b", ("date('now', '-2 days')", "date('now', '-1 day')")),
    (r"大前天|\bthree days ago\b", ("date('now', '-3 days')", "date('now', '-2 days')")),
    # half a month said plainly: fifteen days, today included, as "the last 15 days"
    (r"(?:最近|近|过去)半个?月|\b(?:the\s+)?(?:last|past)\s+half\s+(?:a\s+)?month\b", _days(15)),
    (r"上上周|大上周|上上个?星期|\bthe week before last\b", ("date('now', 'weekday 0', '-20 days')", "date('now', 'weekday 0', '-13 days')")),
    # a weekend is its Saturday and Sunday: last week's, or this week's (which may not have come yet)
    (r"上个?周末|上个?星期的?周末|\blast weekend\b|\bprevious weekend\b",
     ("date('now', 'weekday 0', '-8 days')", "date('now', 'weekday 0', '-6 days')")),
    (r"本周末|这个?周末|\bthis weekend\b", ("date('now', 'weekday 0', '-1 days')", "date('now', 'weekday 0', '+1 day')")),
    (r"上周|上星期|上个星期|\blast week\b|\bprevious week\b|" + _FULL + "week|" + _THE_ONE_BEFORE % "week", _weeks(1)),
    (r"(?:本周|这周|这个?星期|本星期)" + _TO_NOW + r"|本周|这周|这个?星期|本星期|\bthis week\b|\bweek" + _TD
     + r"|\bwtd\b|\bthe week so far\b",
     ("date('now', 'weekday 0', '-6 days')", None)),
    (r"上上个月|上上月|大上个?月|\bthe month before last\b", ("date('now', 'start of month', '-2 months')",
                                                 "date('now', 'start of month', '-1 month')")),
    (r"上个月|上月|\blast month\b|\bprevious month\b|" + _FULL + "month|" + _THE_ONE_BEFORE % "month", _months(1)),
    (r"(?:本月|这个月)" + _TO_NOW + r"|本月|这个月|当月|\bthis month\b|\bmonth" + _TD + r"|\bmtd\b|\b(?:the\s+)?month so far\b",
     ("date('now', 'start of month')", None)),
    # half a month: the 1st to the 15th, or the 16th to its end (上月前半月, 本月下半月, "the first half of last month")
    (r"(?:上个?月|上一个月)的?(?:前|上)半(?:个)?月|\bthe first half of last month\b",
     ("date('now', 'start of month', '-1 month')", "date('now', 'start of month', '-1 month', '+15 days')")),
    (r"(?:上个?月|上一个月)的?(?:后|下)半(?:个)?月|\bthe second half of last month\b",
     ("date('now', 'start of month', '-1 month', '+15 days')", "date('now', 'start of month')")),
    (r"(?:本|这个?)月的?(?:前|上)半(?:个)?月|\bthe first half of this month\b",
     ("date('now', 'start of month')", "date('now', 'start of month', '+15 days')")),
    (r"(?:本|这个?)月的?(?:后|下)半(?:个)?月|\bthe second half of this month\b",
     ("date('now', 'start of month', '+15 days')", None)),
    (r"上季度|上个季度|上一季度|\blast quarter\b|\bprevious quarter\b|" + _FULL + "quarter|" + _THE_ONE_BEFORE % "quarter",
     (f"date({_Q_START}, '-3 months')", _Q_START)),
    (r"本季度|这个季度|\bthis quarter\b|\bquarter" + _TD + r"|\bqtd\b|\b(?:the\s+)?quarter so far\b", (_Q_START, None)),
    (r"前年|\bthe year before last\b", ("date('now', 'start of year', '-2 years')", "date('now', 'start of year', '-1 year')")),
    (r"去年|上一年|\blast year\b|\bprevious year\b|" + _FULL + "year",
     ("date('now', 'start of year', '-1 year')", "date('now', 'start of year')")),
    (r"今年|本年|\bthis year\b|\byear" + _TD + r"|\bytd\b|\b(?:the\s+)?year so far\b", ("date('now', 'start of year')", None)),
    # "the past week / month / year" with no number: one of the N complete periods, as "the past N months"
    (r"\b(?:the\s+)?past\s+week\b", _weeks(1)), (r"\b(?:the\s+)?past\s+month\b", _months(1)),
    (r"\b(?:the\s+)?past\s+quarter\b", _months(3)), (r"\b(?:the\s+)?past\s+year\b", _months(12)),
    # a fortnight is fourteen days, today included, as "the last 14 days"; so is 最近一周 seven (最近两周: two whole weeks)
    (r"(?:最近|近|过去)(?:一|1)\s*(?:周|星期)", _days(7)),
    (r"\b(?:the\s+)?(?:last|past|previous|prior)\s+fortnight\b", _days(14)),
    # 近半年 / 过去半年 / "the last half year": the six complete months before this one, as 近6个月
    (r"(?:最近|近|过去)半年|" + _LAST_HALF, _months(6)),
    # from the start of this period to today: 从年初到现在, 年初至今, 本月初以来, "since the start of the year"
    (r"(?:从|自)?(?:今年)?年初(?:以来|至今|到现在|到今天|到目前为止)|" + _SINCE + r"(?:the|this)\s+year\b",
     ("date('now', 'start of year')", None)),
    (r"(?:从|自)?(?:本|这个)?月初(?:以来|至今|到现在|到今天|到目前为止)|" + _SINCE + r"(?:the|this)\s+month\b",
     ("date('now', 'start of month')", None)),
    (r"(?:从|自)?(?:本|这个)季度初(?:以来|至今|到现在|到今天|到目前为止)|" + _SINCE + r"(?:the|this)\s+quarter\b",
     (_Q_START, None)),
    # from the start of an earlier period up to today: "since the beginning of last year", "去年以来"
    (r"(?:从|自)?去年(?:年初|初)?(?:以来|至今|到现在|到今天)|" + _SINCE + r"last year\b",
     ("date('now', 'start of year', '-1 year')", None)),
    (r"(?:从|自)?上个?月(?:初)?(?:以来|至今|到现在|到今天)|" + _SINCE + r"last month\b",
     ("date('now', 'start of month', '-1 month')", None)),
    (r"(?:从|自)?上个?季度(?:初)?(?:以来|至今|到现在|到今天)|" + _SINCE + r"last quarter\b",
     (f"date({_Q_START}, '-3 months')", None)),
]
# one named day of last or this week ("上周五的销售额", 本周三, 上个星期天): Monday is day 1, Sunday (日/天) day 7
# a day unless a counting word, a number or a range follows (上周一共 is "last week in all", 上周五个城市 five cities,
# 上周三十单 thirty orders; 上周一到周五 a range); 上周五哪三个商品, 上周三西北大区 are the day
_NOT_RANGE = r"(?![个家名位种款笔单件次成倍百千万十共起半点分元块亿号日月年周到至~\-－—–\d]|以来|之前|以后)"
_WEEKDAYS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_FIXED += [(rf"上个?(?:周|星期){c}{_NOT_RANGE if c != '日' else '(?!均|平均)'}",  # 上周日退款: Sunday's; 上周日均: daily
            (f"date('now', 'weekday 0', '-{14 - k} days')", f"date('now', 'weekday 0', '-{13 - k} days')"))
           for c, k in _WEEKDAYS.items()]
_FIXED += [(rf"(?:上上|大上)个?(?:周|星期){c}{_NOT_RANGE if c != '日' else '(?!均|平均)'}",  # 上上周六: that week's
            (f"date('now', 'weekday 0', '-{21 - k} days')", f"date('now', 'weekday 0', '-{20 - k} days')"))
           for c, k in _WEEKDAYS.items()]
# "last Saturday" in English: the latest Saturday before today (on a Saturday, a week ago)
_EN_WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
_FIXED += [(rf"\blast\s+{day}\b", (f"date('now', '-7 days', 'weekday {k}')", f"date('now', '-7 days', 'weekday {k}', '+1 day')"))
           for k, day in enumerate(_EN_WEEKDAYS)]
_FIXED += [(rf"\bthis\s+{day}\b(?!\s+(?:morning|afternoon|evening|night))",  # "this Monday": this week's, Monday first
            (f"date('now', 'weekday 0', '-{7 - k} days')", f"date('now', 'weekday 0', '-{6 - k} days')"
             )) for k, day in enumerate(_EN_WEEKDAYS) if k]  # Sunday: this week's is still to come
_FIXED += [(rf"(?:本|这个?)(?:周|星期){c}{_NOT_RANGE}", (f"date('now', 'weekday 0', '-{7 - k} days')",
                                          f"date('now', 'weekday 0', '-{6 - k} days')" if k < 7 else "date('now', 'weekday 0', '+1 day')"))
           for c, k in _WEEKDAYS.items()]
# a month's three parts (旬): the 1st to the 10th, the 11th to the 20th, the 21st to its end (上个月下旬, 本月上旬)
_FIXED += [(rf"{said}的?{part}旬", (f"date('now', 'start of month'{shift}, '+{first} days')",
                                   f"date('now', 'start of month'{shift}, '+{last} days')" if last else
                                   (f"date('now', 'start of month'{shift}, '+1 month')" if shift else None)))
           for said, shift in ((r"(?:上个?月|上一个月)", ", '-1 month'"), (r"(?:本|这个?)月", ""))
           for part, first, last in (("上", 0, 10), ("中", 10, 20), ("下", 20, None))]
# words between the number and the unit: "the previous six full calendar months", "8 complete Monday-to-Sunday weeks"
_KIND = r"(?:(?:full|complete|whole|entire|finished|calendar|monday[\s-]to[\s-]sunday|monday[\s-]start(?:ing)?)\s+){0,2}"
_ZH_KIND = r"(?:完整的?|整|自然){0,2}"  # 过去8个完整周, 最近3个自然月, 十个完整自然周: the complete periods, as without
_LAST = r"\b(?:last|past|previous|prior|preceding)\s+"
_BEFORE_NOW = r"\s+before\s+(?:this|the\s+current)\s+(?:one|week|month)"  # "the 12 full months before this one"
# "the three calendar months just finished", "the six most recent complete weeks": N complete periods before this one
_JUST_DONE = r"\s+(?:just\s+)?(?:finished|ended|gone|completed|closed|past)\b"
_RECENT = r"\s+(?:most\s+recent|latest|last|previous|prior|past)\s+"
_COUNTED: list[tuple[str, object]] = [
    (rf"(?:最近|近|过去|前){_NUM}\s*(?:天|日)", _days),
    (rf"{_LAST}{_EN_NUM}\s+{_KIND}days?\b", _days),
    (rf"(?!(?:最近|近|过去)[一1]\s*(?:周|星期))(?:最近|近|过去|前){_NUM}\s*(?:个)?{_ZH_KIND}(?:周|星期)", _weeks),
    (rf"{_LAST}{_EN_NUM}\s+{_KIND}(?:weeks?|wks?)\b", _weeks),  # "past 8 wks"
    (rf"\b{_EN_NUM}\s+{_KIND}weeks{_BEFORE_NOW}", _weeks),
    (rf"\b{_EN_NUM}\s+{_KIND}weeks{_JUST_DONE}|\b{_EN_NUM}{_RECENT}{_KIND}weeks\b", _weeks),
    (rf"(?:最近|近|过去|前){_NUM}\s*个{_ZH_KIND}月", _months),
    (rf"{_LAST}{_EN_NUM}\s+{_KIND}(?:months?|mos?|mths?)\b", _months),  # "last 6 mos"
    (rf"\b{_EN_NUM}\s+{_KIND}months{_BEFORE_NOW}", _months),
    (rf"\b{_EN_NUM}\s+{_KIND}months{_JUST_DONE}|\b{_EN_NUM}{_RECENT}{_KIND}months\b", _months),
    # the N complete quarters before this one, as the N complete months: 最近4个季度, "the last four complete quarters"
    (rf"(?:最近|近|过去){_NUM}\s*个{_ZH_KIND}季度", _quarters),
    (rf"{_LAST}{_EN_NUM}\s+{_KIND}quarters?\b", _quarters),
    (rf"\b{_EN_NUM}\s+{_KIND}quarters{_JUST_DONE}|\b{_EN_NUM}{_RECENT}{_KIND}quarters\b", _quarters),
    # business shorthand: "L30D" / "L7D" the last 30 / 7 days, "L8W" the last 8 weeks, "L12M" the last 12 months
    (r"\bL(\d{1,4})D\b", _days), (r"\bL(\d{1,3})W\b", _weeks), (r"\bL(\d{1,3})M\b", _months),
]


def find_windows(question: str, dialect: str = "sqlite") -> list[TimeWindow]:
    """The relative time phrases of `question`, in order of appearance, without overlaps, as SQL of
    `dialect` (an engine, SQLAlchemy or sqlglot name; '' = SQLite's expressions)."""
    windows = _sqlite_windows(question)
    adapter = adapter_for(dialect)
    if adapter is None or adapter.now_dates or not windows:
        return windows
    out = []
    for w in windows:
        start, end = evaluate(w)
        out.append(TimeWindow(w.phrase, adapter.date_literal(start), adapter.date_literal(end) if w.end else None))
    return out


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def holds_dates(catalog: Catalog) -> bool:
    """Whether some column holds dates: a date or time type, or text whose sample values are ISO dates."""
    for table in catalog.tables:
        for col in table.columns:
            kind = (col.type or "").upper()
            if "DATE" in kind or "TIME" in kind or (col.samples and all(_ISO_DAY.match(v) for v in col.samples[:3])):
                return True
    return False


def catalog_windows(question: str, catalog: Catalog) -> list[TimeWindow]:
    """The question's time windows where the catalog has dates to apply them to; none where it has none
    ("in 1948" over a column of years is a number to compare, not a date range)."""
    return find_windows(question, catalog.dialect) if holds_dates(catalog) else []


def evaluate(window: TimeWindow) -> tuple[date, date]:
    """A window's [start, end) as dates, today's; a window open at its end ends after today."""
    end_sql = window.end or "date('now', '+1 day')"
    with sqlite3.connect(":memory:") as conn:
        start, end = conn.execute(f"SELECT {window.start}, {end_sql}").fetchone()
    return date.fromisoformat(start[:10]), date.fromisoformat(end[:10])


def _sqlite_windows(question: str) -> list[TimeWindow]:
    found: list[tuple[int, int, TimeWindow]] = []
    said, question = question, question.replace("礼拜", "星期")  # 上个礼拜 is 上个星期 (the same length: the same spans)
    for pattern, make in _COUNTED:
        for m in rx(pattern, re.I).finditer(question):
            n = _number(next(g for g in m.groups() if g))
            if n and 0 < n <= 3660:
                found.append((m.start(), m.end(), TimeWindow(said[m.start():m.end()], *make(n))))
    found += [(s, e, TimeWindow(said[s:e], start, end)) for s, e, start, end in named_periods(question)]
    found += [(s, e, TimeWindow(said[s:e], start, end)) for s, e, start, end in month_days(question) + edge_days(question)]
    for pattern, (start, end) in _FIXED:
        for m in rx(pattern, re.I).finditer(question):
            found.append((m.start(), m.end(), TimeWindow(said[m.start():m.end()], start, end)))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    out, last_end = [], -1
    for start, end, window in found:
        if start >= last_end:  # skip a phrase inside a longer one ("上上个月" holds "上个月")
            out.append(window)
            last_end = end
    return out
