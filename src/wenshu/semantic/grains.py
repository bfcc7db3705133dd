"""The period a question groups or averages by, in its own words: a trend's grain ("每月", "week by week",
"each of the last six months") and an average per period ("日均", "average daily"). The words are the
languages' own period words, not any question set's."""

from __future__ import annotations

import re

from wenshu.knowledge.time_phrases import evaluate, find_windows
from wenshu.semantic.phrasing import SUPERLATIVE

# an average per period: the measure per day (week, month), averaged over the window's periods
PER_WORDS = {
    "day": r"日均|平均每?[一1]?[天日]|每[天日]平均|daily average|average daily|average per day|avg daily|per day on average",
    "week": r"周均|平均每?[一1]?周|每周平均|weekly average|average weekly|average per week",
    "month": r"月均|平均每?[一1]?个?月|每个?月平均|monthly average|average monthly|average per month",
}
GRAIN_WORDS = {
    "day": r"每天|每日|按天|按日|逐日|一天一天|哪天|哪一天|" + SUPERLATIVE + r"的(?:那|一)天|daily|per day|by day|each day|which day|what day|day[\s-](to|by)[\s-]day",
    "week": r"每周|每个?星期|每个?礼拜|按周|逐周|一周一周|哪周|哪一周|weekly|per week|by week|each week|which week|week[\s-](to|by)[\s-]week",
    "month": r"每月|每个月|按月|逐月|一个?月一个?月|月度|各月|哪个月|哪月|monthly|per month|by month|each month|which month"
             r"|month[\s-](to|by)[\s-]month",
    "quarter": r"每个?季度|按季度|一个季度一个季度|各季度|季度趋势|[四4]个季度|quarterly|per quarter|by quarter|each quarter"
               r"|(four|4|each of the) quarters|quarter[\s-](to|by)[\s-]quarter",
    "year": r"每年|按年|各年|逐年|一年一年|年度趋势|yearly|annual|per year|by year|each year",
}


def per_period(question: str) -> str | None:
    """The period of "日均", "average daily", "月均": the measure is averaged over such periods."""
    return next((g for g, words in PER_WORDS.items() if re.search(words, question, re.I)), None)


_EACH_OF = re.compile(r"\beach of the (?:(?:last|past|previous|prior)\s+)?(?:[\w-]+\s+){0,4}?(day|week|month|quarter|year)s\b",
                      re.I)  # "sales for each of the last six months": one row per month


def explicit_grain(question: str) -> str | None:
    if per_period(question):
        question = re.sub("|".join(PER_WORDS.values()), " ", question, flags=re.I)
    for grain, words in GRAIN_WORDS.items():
        if re.search(words, question, re.I):
            return grain
    each = _EACH_OF.search(question)
    return each.group(1).lower() if each else over_grain(question)


_OVER = re.compile(r"\b(week|month|quarter)[\s-]over[\s-]\1\b", re.I)
_DAYS = {"week": 7, "month": 28, "quarter": 89}


def over_grain(question: str) -> str | None:
    """"Are app sales growing month over month? the last 6 full months": a trend by month, each month against
    the one before, when the question's window holds two such periods or more; over one month ("last month's
    GMV, month over month") it is a comparison of that month with the one before, no trend."""
    said = _OVER.search(question)
    if said is None:
        return None
    grain = said.group(1).lower()
    spans = [evaluate(w) for w in find_windows(question)]
    return grain if any((end - start).days >= 2 * _DAYS[grain] for start, end in spans) else None
