"""A question's time window as dates, for a plan: the time-phrase resolver's bounds, evaluated.

`knowledge.time_phrases` resolves "上个月", "最近30天", "last week" to SQLite date expressions (the
business calendar lives there); evaluating them in an in-memory SQLite gives plain dates, which the
plan compiler then writes in any dialect.
"""

from __future__ import annotations

import re

from wenshu.knowledge.time_phrases import TimeWindow, evaluate, find_windows
from wenshu.semantic.mentions import CUES
from wenshu.semantic.plan import Window


def plan_window(question: str, compare: str = "none") -> Window | None:
    """The window a plan answers for: the question's first period, not counting the one a comparison names
    ("和去年同期比" names last year only as what this period is compared with)."""
    if compare != "none":
        question = re.sub(CUES[compare], " ", question, flags=re.I)
    return question_window(question)


def question_window(question: str) -> Window | None:
    """The first time window the question names, as [start, end) dates, ending today at the latest (a
    period still running is "to date"); None when it names none."""
    windows = find_windows(question, "sqlite")
    if not windows:
        return None
    start, end = evaluate(windows[0])  # a period still running is "to date": through today
    tomorrow = evaluate(TimeWindow("", "date('now', '+1 day')", None))[0]
    return Window(start=start, end=min(end, tomorrow))
