"""A list's order said in words: "most recent first", 按时间倒序 (newest first), "oldest first", 按时间顺序.

Such a phrase orders a list by its record's time; it is no split ("按时间" before 顺序 does not group by a date)
and no rank. The words are the languages' own ordering phrases, not any question set's.
"""

from __future__ import annotations

import re

NEWEST_FIRST = re.compile(r"\b(most recent|newest|latest)( ones?)? first\b|\bin reverse (date|time|chronological) "
                          r"order\b|最新的?(在前|排在?前|放前面)|按时间倒序|时间倒序|倒序排列|从新到旧|由新到旧|从近到远", re.I)
OLDEST_FIRST = re.compile(r"\b(oldest|earliest)( ones?)? first\b|\bin (date|time|chronological) order\b"
                          r"|按时间(正序|顺序)|时间顺序|从旧到新|由旧到新|从早到晚|从远到近", re.I)


def in_time_order(question: str) -> str | None:
    """"desc" for "most recent first" (最新的在前), "asc" for "oldest first" (按时间顺序), else None."""
    return "desc" if NEWEST_FIRST.search(question) else "asc" if OLDEST_FIRST.search(question) else None


def spans(question: str) -> list[tuple[int, int]]:
    """Where the question says a time order (no other entry is read there)."""
    return [m.span() for pat in (NEWEST_FIRST, OLDEST_FIRST) for m in pat.finditer(question)]
