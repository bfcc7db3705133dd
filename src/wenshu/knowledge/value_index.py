"""The sampled-values index: which column holds a literal the question names ("华东", "已支付", "France").

Values come from each column's sampled distinct values and enum labels. A question's n-grams
(`tokenize.ngrams`) are matched exactly (case-insensitive) and then fuzzily (rapidfuzz ratio) against
values of a similar length (narrowed by shared character bigrams when there are many). A hit pins
`{table, column, value}`; for an enum label the value is the stored code ("1" for 已支付). Short Chinese
names are also indexed in pinyin, matched exactly ("Shanghai" names 上海), so English questions reach
Chinese data.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass

from pypinyin import lazy_pinyin
from rapidfuzz import fuzz, process

from wenshu.catalog import Catalog
from wenshu.knowledge.documents import clean_value, column_values
from wenshu.knowledge.tokenize import STOPWORDS, _CJK, english_words, ngrams

FUZZY_CUTOFF = 88.0
MAX_FUZZY_CANDIDATES = 2000
MAX_FUZZY_WINDOW = 5000  # labels compared directly before the bigram filter is used


@dataclass(frozen=True)
class ValueEntry:
    table: str
    column: str
    value: str  # what SQL compares against (the stored code for an enum label)
    label: str  # what a person types
    exact_only: bool = False  # a romanized form: matched as written, never fuzzily


@dataclass(frozen=True)
class ValueHit:
    table: str
    column: str
    value: str
    label: str  # the sampled value or enum label that matched
    matched: str  # the question's words that matched it
    score: float  # 1.0 exact, below for fuzzy

    def as_dict(self) -> dict:
        out = {"table": self.table, "column": self.column, "value": self.value}
        if self.label != self.value:
            out["label"] = self.label  # an enum: the stored code is `value`, people say `label`
        return out


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _matchable(label: str) -> bool:
    """Too-short or numeric literals would match everywhere ("1", "a"); CJK needs two characters."""
    if label.replace(".", "").replace("-", "").isdigit():
        return False
    if _CJK.search(label):
        return len(label) >= 2
    return len(label) >= 3 and label not in STOPWORDS


def romanized(label: str) -> list[str]:
    """A short Chinese name in pinyin as English text writes it: 上海 -> shanghai, 李宁 -> li ning.
    Only names of two to four characters (places, brands, people), where pinyin is the usual spelling."""
    if not (2 <= len(label) <= 4 and _CJK.fullmatch(label)):
        return []
    syllables = lazy_pinyin(label, errors="ignore")
    if len(syllables) != len(label):
        return []
    out = ["".join(syllables)] + ([" ".join(syllables)] if len(label) == 2 else [])
    return [r for r in out if len(r) >= 4]


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)} or {text}


_CLASSED = re.compile(r"[\u4e00-\u9fff]{4,}")


def class_words(entries: list[ValueEntry]) -> list[ValueEntry]:
    """A Chinese value of four characters or more said as its first two and 类 ("母婴类" for 母婴玩具, "美妆类" for
    美妆个护), when no other value of its column begins with those two: matched as written, never fuzzily."""
    by_start: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
    for e in entries:
        if not e.exact_only and _CLASSED.fullmatch(e.label):
            by_start[(e.table, e.column, e.label[:2])].add((e.value, e.label))
    labels = {_norm(e.label) for e in entries}
    return [ValueEntry(t, c, value, start + "类", exact_only=True) for (t, c, start), found in by_start.items()
            if len(found) == 1 and start + "类" not in labels for value, _ in found]


class ValueIndex:
    def __init__(self, entries: list[ValueEntry], schema_words: frozenset[str] = frozenset()):
        self.schema_words = schema_words  # stemmed words of table and column names: never read fuzzily as a value
        self.exact: dict[str, list[ValueEntry]] = defaultdict(list)
        for e in entries:
            key = _norm(e.label)
            if _matchable(key):
                self.exact[key].append(e)
        self.labels = [k for k, es in self.exact.items() if not all(e.exact_only for e in es)]  # the fuzzy pool
        self.by_length = sorted(self.labels, key=len)
        self.lengths = [len(label) for label in self.by_length]
        self.by_bigram: dict[str, list[int]] = defaultdict(list)
        for i, label in enumerate(self.labels):
            for bg in _bigrams(label):
                self.by_bigram[bg].append(i)

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> ValueIndex:
        entries = []
        for table in catalog.tables:
            for col in table.columns:
                codes = {label: code for code, label in col.enum.items()}
                for label in column_values(col, names=True):
                    value = clean_value(codes.get(label, label)) or label
                    entries.append(ValueEntry(table.name, col.name, value, label))
                    entries += [ValueEntry(table.name, col.name, value, r, exact_only=True) for r in romanized(label)]
        names = [t.name for t in catalog.tables] + [c.name for t in catalog.tables for c in t.columns]
        return cls(entries + class_words(entries), frozenset(w for n in names for w in english_words(n)))

    def __len__(self) -> int:
        return len(self.labels)

    def _fuzzy(self, gram: str) -> list[tuple[str, float]]:
        """Labels close to `gram`: only labels of a compatible length are compared (in C, by rapidfuzz);
        a very large window is first narrowed to labels sharing half of the gram's character bigrams."""
        lo = bisect.bisect_left(self.lengths, int(len(gram) * 0.75))
        hi = bisect.bisect_right(self.lengths, int(len(gram) * 1.34) + 1)
        candidates = self.by_length[lo:hi]
        if len(candidates) > MAX_FUZZY_WINDOW:
            grams = _bigrams(gram)
            counts: dict[int, int] = defaultdict(int)
            for bg in grams:
                for i in self.by_bigram.get(bg, ()):
                    counts[i] += 1
            need = max(1, len(grams) // 2)
            chosen = sorted((i for i, n in counts.items() if n >= need), key=lambda i: -counts[i])
            candidates = [self.labels[i] for i in chosen[:MAX_FUZZY_CANDIDATES]]
        found = process.extract(gram, candidates, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=5)
        return [(label, score / 100.0) for label, score, _ in found]

    def _names_schema(self, gram: str) -> bool:
        """"airport names": words of the schema's own names, near a value only by spelling ("Ames")."""
        words = english_words(gram)
        return bool(words) and all(w in self.schema_words for w in words)

    def match(self, question: str, limit: int = 20) -> list[ValueHit]:
        """Values named in the question, longest literal first; a value is reported once."""
        grams = sorted((_norm(g) for g in ngrams(question)), key=lambda g: (-len(g), g))
        hits: dict[tuple[str, str, str], ValueHit] = {}
        for gram in grams:
            if not _matchable(gram):
                continue
            found = [(gram, 1.0)] if gram in self.exact else []
            if not found and len(gram) >= (3 if _CJK.search(gram) else 5) and not self._names_schema(gram):
                found = self._fuzzy(gram)
            for label, score in found:
                for e in self.exact[label]:
                    key = (e.table, e.column, e.value)
                    if key not in hits or hits[key].score < score:
                        hits[key] = ValueHit(e.table, e.column, e.value, e.label, gram, score)
        ranked = sorted(hits.values(), key=lambda h: (-h.score, -len(h.matched), h.table, h.column))
        return _keep_named_tables(_drop_shadowed(ranked), question)[:limit]


def _keep_named_tables(hits: list[ValueHit], question: str) -> list[ValueHit]:
    """A literal several tables hold ("Wisconsin" in Owners.state and Professionals.state): when the
    question names some of those tables ("professionals who live in Wisconsin"), only theirs are kept."""
    said = set(english_words(question))
    by_literal: dict[str, set[str]] = defaultdict(set)
    for h in hits:
        by_literal[h.matched].add(h.table)
    named = {t for tables in by_literal.values() if len(tables) > 1 for t in tables
             if (words := set(english_words(t))) and words <= said}
    return [h for h in hits if h.table in named or not (by_literal[h.matched] & named)]


def _drop_shadowed(hits: list[ValueHit]) -> list[ValueHit]:
    """A literal inside a longer exact literal ("华东" inside "华东区") is kept only if nothing longer matched it."""
    exact = [h.matched for h in hits if h.score >= 1.0]
    out = []
    for h in hits:
        if any(h.matched != longer and h.matched in longer for longer in exact):
            continue
        out.append(h)
    return out
