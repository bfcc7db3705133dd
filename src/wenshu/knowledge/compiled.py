"""Patterns compiled once per process.

Reading one question runs more distinct patterns (time phrases, cues, bounds, each count's act and noun)
than `re`'s own cache holds (512 entries, dropped oldest first), so every question used to compile hundreds
of them again: about a second of rules per question on a laptop core. `rx` keeps them all.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=32768)
def rx(pattern: str, flags: int = 0) -> re.Pattern:
    """`re.compile(pattern, flags)`, kept for the life of the process."""
    return re.compile(pattern, flags)
