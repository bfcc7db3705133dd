"""Numbers said in words: English up to ninety-nine ("forty-five", "twenty one", "fifteen") and Chinese up to the
hundreds (十二, 一百五十, 两百), as the regular expressions that find them and the value each stands for. The periods,
days and times of a question are said this way ("over the last forty-five days", 最近一百五十天, 晚上九点)."""

from __future__ import annotations

_ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

WORDS: dict[str, int] = {w: i + 1 for i, w in enumerate(_ONES)} | {w: i + 10 for i, w in enumerate(_TEENS)} \
    | {w: 10 * (i + 2) for i, w in enumerate(_TENS)}

_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

# the tens with a one after them first, so "forty-five" is read whole, not as "forty"
PATTERN = r"(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(_ONES) + r"))?|" + "|".join(_TEENS + _ONES)


def value(text: str) -> int | None:
    """The number `text` says in words ("forty-five" -> 45), None when it is none."""
    parts = text.lower().replace("-", " ").split()
    if not parts or any(p not in WORDS for p in parts) or len(parts) > 2:
        return None
    if len(parts) == 2 and not (parts[0] in _TENS and parts[1] in _ONES):
        return None
    return sum(WORDS[p] for p in parts)


# a number as digits or Chinese numerals, and as digits or English words (one group each)
NUM = r"(\d+|[一二两三四五六七八九十百零]{1,5})"
EN_NUM = r"(\d+|" + PATTERN + r")"


def number(text: str) -> int | None:
    """The number `text` says: digits, English words or Chinese numerals (一百五 is 150); None when it is none."""
    if text.isdigit():
        return int(text)
    if (said := value(text)) is not None:
        return said
    if text == "十":
        return 10
    if "百" in text:  # 一百, 一百五十, 两百, 一百零五, 一百五 (a hundred and fifty)
        hundreds, _, rest = text.partition("百")
        lead = _CN_DIGITS.get(hundreds, 1) if len(hundreds) <= 1 else None
        tail = number(rest.lstrip("零")) if rest.lstrip("零") else 0
        if lead is None or tail is None:
            return None
        return lead * 100 + (tail * 10 if len(rest) == 1 and tail < 10 else tail)
    if "十" in text:  # 十二, 二十, 二十四
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    return _CN_DIGITS.get(text) if len(text) == 1 else None
