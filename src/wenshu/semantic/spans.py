"""A semantic model's words found in a question: each entry's words, longest first, each stretch of the
question used once ("商品销售额" is not also "销售额"); English names matched however they are written
(singular or plural, hyphenated, spaced or run together, "&" as "and")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache


def _ascii_pattern(word: str) -> str:
    """An English name however it is written: its last word singular or plural, words apart, hyphenated
    or run together ("sign-ups", "sign ups", "signups"), and "&" as "and"."""
    tokens = [t for t in re.split(r"[\s\-]+", word) if t]
    if len(tokens) < 2:
        return _plural(word)
    parts = ["(?:&|and)" if t in ("&", "and") else re.escape(t) for t in tokens[:-1]] + [_plural(tokens[-1])]
    return r"[\s\-]*".join(parts)


def _plural(word: str) -> str:
    """An English word in the singular or plural, however the model names it: city|cities,
    brand|brands, "new customers" also as "new customer sign-ups"."""
    if not word[-1:].isalpha():
        return re.escape(word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3 and word[-2:-1].isalpha():
        word = word[:-1]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return re.escape(word[:-1]) + "(?:y|ies)"
    return re.escape(word) + "(?:es|s)?"


@lru_cache(maxsize=8192)  # a model's words outnumber `re`'s own cache: compiled once, not per question
def _compiled(word: str) -> re.Pattern:
    return re.compile(rf"(?<![a-z0-9]){_ascii_pattern(word)}(?![a-z0-9])" if word.isascii() else re.escape(word))


@dataclass
class Spans:
    """Matches of a set of entries' words, longest first, each stretch of the question used once."""

    hits: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # entry id -> spans
    others: dict[str, list[str]] = field(default_factory=dict)  # entry id -> other ids the same word names

    @classmethod
    def find(cls, question: str, words: dict[str, list[str]], taken: list[tuple[int, int]] | None = None) -> Spans:
        q = question.casefold()
        pairs = sorted(((w.casefold(), eid) for eid, ws in words.items() for w in ws if w and w.strip()),
                       key=lambda p: -len(p[0]))
        used = list(taken or [])
        out: dict[str, list[tuple[int, int]]] = {}
        owners: dict[str, list[str]] = {}
        for word, eid in pairs:
            owners.setdefault(word, []).append(eid)
        others: dict[str, list[str]] = {}
        for word, eid in pairs:
            for m in _compiled(word).finditer(q):
                span = m.span()
                if not any(span[0] < e and s < span[1] for s, e in used):
                    used.append(span)
                    out.setdefault(eid, []).append(span)
                    rest = [o for o in owners[word] if o != eid]
                    if rest:
                        others[eid] = rest
        return cls(out, others)

    def ids(self) -> list[str]:
        return sorted(self.hits, key=lambda i: min(s for s, _ in self.hits[i]))

    def spans(self) -> list[tuple[int, int]]:
        return [s for v in self.hits.values() for s in v]

    def echoed(self, question: str) -> Spans:
        """A short name said again after a longer one it ends ("by membership tier with each tier's share",
        "按城市等级看，每个等级…") names the longer one's entry, not another entry whose own word it is."""
        q = question.casefold()
        out = {k: list(v) for k, v in self.hits.items()}
        for eid, spans in self.hits.items():
            for s, e in spans:
                short = q[s:e]
                longer = next((k for k, v in out.items() if k != eid for a, b in v if _ends(q[a:b], short)), None)
                if longer is not None:
                    out[eid].remove((s, e))
                    out[longer].append((s, e))
        return Spans({k: v for k, v in out.items() if v}, self.others)


def _ends(long: str, short: str) -> bool:
    """`long` ends with the word `short` ("membership tier" with "tier", 城市等级 with 等级)."""
    return len(long) > len(short) and long.endswith(short) and (not short.isascii() or not long[-len(short) - 1].isalnum())
