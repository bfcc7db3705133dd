"""A follow-up that moves the previous window by a number of days, weeks or months, keeping its length: "往后挪一天",
"再往前推两周", "晚一个月", "move it a day later", "shift that back two weeks", "one week later". (One period before
the whole window, "前一周" / "the week before", is `windows.BEFORE`.)"""

from __future__ import annotations

import re
from datetime import timedelta

from wenshu.knowledge.number_words import EN_NUM, NUM, number
from wenshu.semantic.plan import Window, add_months

_UNIT_ZH = r"(天|日|周|个?星期|个?礼拜|个?月)"
_UNIT_EN = r"(days?|weeks?|months?)"
_LATER_ZH = r"(?:再?往后|再?向后)[挪推移延]?|推后|推迟|延后|延迟|后移|后延|晚"
_EARLIER_ZH = r"(?:再?往前|再?向前)[挪推移]?|提前|前移|早"
_MOVES = [(re.compile(rf"(?:{_LATER_ZH})\s*{NUM}?\s*{_UNIT_ZH}"), 1),
          (re.compile(rf"(?:{_EARLIER_ZH})\s*{NUM}?\s*{_UNIT_ZH}"), -1),
          (re.compile(rf"\b(?:a|an|one|{EN_NUM})\s+{_UNIT_EN}\s+(?:later|forward|on)\b", re.I), 1),
          (re.compile(rf"\b(?:a|an|one|{EN_NUM})\s+{_UNIT_EN}\s+(?:earlier|back)\b", re.I), -1),
          (re.compile(rf"\b(?:forward|ahead)\s+(?:by\s+)?(?:a|an|one|{EN_NUM})\s+{_UNIT_EN}\b", re.I), 1),
          (re.compile(rf"\bback\s+(?:by\s+)?(?:a|an|one|{EN_NUM})\s+{_UNIT_EN}\b", re.I), -1)]


def moved(question: str, previous: Window) -> Window | None:
    """`previous` moved as the follow-up says, or None when it moves nothing."""
    for pattern, sign in _MOVES:
        if found := pattern.search(question):
            count, unit = found.group(1), found.group(2)  # "a day later", 往后挪一天: one
            n = number(count) if count else 1
            if not n:
                continue
            unit = unit.lower()
            if "月" in unit or unit.startswith("month"):  # whole months stay whole; other days keep their length
                start = add_months(previous.start, sign * n)
                whole = previous.start.day == 1 and previous.end.day == 1
                return Window(start=start, end=add_months(previous.end, sign * n) if whole else
                              start + (previous.end - previous.start))
            days = sign * n * (7 if re.search(r"周|星期|礼拜|week", unit) else 1)
            return Window(start=previous.start + timedelta(days=days), end=previous.end + timedelta(days=days))
    return None
