"""English numbers in words up to ninety-nine ("forty-five", "twenty one", "fifteen"), as the regular expression
that finds them and the value each stands for: the periods of a question are said this way ("over the last
forty-five days")."""

from __future__ import annotations

_ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

WORDS: dict[str, int] = {w: i + 1 for i, w in enumerate(_ONES)} | {w: i + 10 for i, w in enumerate(_TEENS)} \
    | {w: 10 * (i + 2) for i, w in enumerate(_TENS)}

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
