"""What a datasource talks about, as words a question may use: read from its catalog (table and column
names, column comments, code labels) and its semantic model (measure, dimension and record names and
synonyms, dimension labels). The intent gate asks it whether a message is about this data, so no word
list tied to one database lives in code.

English words match whole words (a trailing plural s aside), so a column called `name` does not make
"rename" a data question; words of three letters or fewer are left out as too common, except the
acronyms a semantic model names (GMV, UV). Chinese words
of two characters or more match anywhere in the message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

MIN_ASCII = 4  # shortest English word taken from a schema
MIN_CJK = 2


def _cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _split(name: str) -> list[str]:
    """`order_items` -> order, items; `PetType` -> pet, type; a Chinese comment stays whole."""
    if _cjk(name):
        return [name.strip()]
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


@dataclass(frozen=True)
class Vocabulary:
    words: frozenset[str]

    @classmethod
    def of(cls, catalog=None, semantic=None) -> Vocabulary:
        raw: list[str] = []
        for t in getattr(catalog, "tables", None) or []:
            raw += [t.name, t.comment or "", *(c.name for c in t.columns), *(c.comment or "" for c in t.columns)]
            raw += [str(v) for c in t.columns for v in (c.enum or {}).values()]
        for entry in semantic.entries() if semantic is not None else []:
            raw += [w for w in entry.words() if w]
            raw += [str(v) for v in (*getattr(entry, "labels", {}).values(), *getattr(entry, "labels_en", {}).values())]
        words = set()
        for text in raw:
            for w in [text.strip().lower(), *_split(text)]:
                if len(w) >= (MIN_CJK if _cjk(w) else MIN_ASCII) and not w.isdigit():
                    words.add(w)
        for entry in semantic.entries() if semantic is not None else []:
            # an acronym a person wrote into the semantic model (GMV, UV, AOV) is a word of this data
            words.update(w.lower() for w in entry.words() if w and w.isascii() and w.isupper() and len(w) >= 2)
        return cls(frozenset(words))

    @cached_property
    def _ascii(self) -> re.Pattern | None:
        ascii_words = sorted((w for w in self.words if not _cjk(w)), key=len, reverse=True)
        if not ascii_words:
            return None
        # ASCII boundaries, not \b: in "本月GMV和" the Chinese characters count as word characters
        return re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, ascii_words)) + r")(?:e?s)?(?![A-Za-z0-9_])",
                          re.I)

    def mentioned(self, question: str) -> bool:
        """Whether the question names something this datasource holds."""
        low = question.lower()
        if any(w in low for w in self.words if _cjk(w)):
            return True
        return bool(self._ascii and self._ascii.search(question))
