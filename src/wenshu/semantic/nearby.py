"""Words the semantic model does not list, matched by meaning (the `near_words` check).

The question reading (`semantic.mentions`) matches the model's own names, synonyms and labels as text,
so "takings", "where the customers live" or 回头客 name nothing unless someone listed them, and the
plan model's choice of the entry they mean is dropped as not said. Here the question's phrases that no
entry's word already covers (English runs of one to three words that start and end with a content word;
Chinese nouns, verbs and adjectives by jieba's part of speech, and pairs of neighbouring ones) are embedded with the same multilingual embedder as
schema recall and compared with the words of each measure (ratios included) and of each dimension that
is not a time; a phrase is near the entry it is closest to when the cosine reaches `FLOOR` and beats the
phrase's next-best entry of the same kind by `MARGIN`. Nothing is translated and no word list is
involved beyond the language's function words: what is near is decided by the semantic model's words
and the embedder. Grounding uses it only to keep what the plan model chose itself (`semantic.grounding`):
the model and the embedder must agree.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from wenshu.knowledge.tokenize import _CJK, CJK_STOP, STOPWORDS, _jieba
from wenshu.semantic.labels import label_words
from wenshu.semantic.mentions import Mentions
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.variants import entry_words

# phrase-to-word cosine: on the demo model words that mean an entry score 0.69-0.91 ("purchasers" ~ buyers 0.90,
# 回头客 ~ customer 0.69), unrelated words up to 0.66 ("make" ~ GMV, "least" ~ city tier 0.51)
FLOOR = 0.68
MARGIN = 0.06  # ... and this far above the phrase's best other entry of the same kind
MAX_WORDS = 3
_WORD = re.compile(r"[a-z][a-z'-]*|\d+")
# English function words and the words of time (the time-phrase resolver reads those): a phrase neither
# starts nor ends with one
_FUNCTION = STOPWORDS | frozenset(
    "i me my we us our ours you your they their it he she his her am be been being had will would can could "
    "should may might shall some no not only just also than into over under about between through during "
    "after before up down out off so but if then there's what's who's how's let's show get see want need "
    "like day days week weeks month months quarter quarters year years today yesterday tomorrow last next "
    "ago past recent latest previous current so-far far per one two three least most more less few fewer other "
    "another same such own".split())


def _blanked(question: str, covered: list[str]) -> str:
    text = question
    for word in sorted({w for w in covered if w}, key=len, reverse=True):
        text = re.sub(re.escape(word), " | ", text, flags=re.I)
    return text


def _english(text: str) -> list[str]:
    out = []
    for part in re.split(r"[^a-z0-9' -]+", text.casefold()):
        words = _WORD.findall(part)
        for i in range(len(words)):
            for n in range(1, MAX_WORDS + 1):
                run = words[i:i + n]
                if len(run) < n or run[0] in _FUNCTION or run[-1] in _FUNCTION:
                    continue
                if all(w.isdigit() or len(w) < 3 for w in run):
                    continue
                out.append(" ".join(run))
    return out


def _content(flag: str) -> bool:
    """A noun, verb or adjective by jieba's part of speech (not a pronoun, numeral, adverb or time word)."""
    return flag[:1] in ("n", "v", "a") and flag not in ("ad", "vd")


def _chinese(text: str) -> list[str]:
    out = []
    for run in _CJK.findall(text):
        words = [(p.word, _content(p.flag) and p.word not in CJK_STOP) for p in _posseg().lcut(run)]
        for i, (w, content) in enumerate(words):
            if content and len(w) >= 2:
                out.append(w)
            if content and i + 1 < len(words) and words[i + 1][1]:
                out.append(w + words[i + 1][0])
    return out


def read_words(m: Mentions, model: SemanticModel, question: str) -> list[str]:
    """The question's words the text reading already gave a meaning: a measure's, a dimension's, a value's."""
    words = [w for ws in [*m.measure_words.values(), *m.dimension_words.values()] for w in ws]
    dims, q = {d.id: d for d in model.dimensions}, question.casefold()
    for did, codes in m.values.items():
        named = label_words(dims[did]) if did in dims else {}
        words += [w for c in codes for w in named.get(c, [c]) if w.casefold() in q]
    return words


def phrases(question: str, covered: list[str] = ()) -> list[str]:
    """The question's candidate phrases, outside the words already read (`covered`)."""
    text = _blanked(question, list(covered))
    return list(dict.fromkeys(_english(text) + _chinese(text)))


def _posseg():
    _jieba()  # the dictionary, loaded once and quietly
    import jieba.posseg

    return jieba.posseg


class Nearby:
    """Per semantic model, its entries' word vectors (built once); per question, the entries near its phrases."""

    def __init__(self, embedder):
        self._embedder = embedder
        self._built: dict[tuple, tuple[list[str], np.ndarray, np.ndarray]] = {}

    def _entries(self, model: SemanticModel, kind: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        if kind == "measures":
            entries = [(e.id, entry_words(model, e)) for e in [*model.measures, *model.ratios]]
        else:
            entries = [(d.id, d.words()) for d in model.dimensions if d.kind != "time"]
        key = (model.datasource, kind, tuple((i, tuple(ws)) for i, ws in entries))
        if key not in self._built:
            ids = [i for i, _ in entries]
            words = [(n, w) for n, (_, ws) in enumerate(entries) for w in dict.fromkeys(ws) if w]
            vectors = self._embedder.embed([w for _, w in words]) if words else np.zeros((0, 1), np.float32)
            self._built[key] = (ids, np.array([n for n, _ in words], dtype=int), vectors)
        return self._built[key]

    def _closest(self, candidates: list[str], vectors: np.ndarray, model: SemanticModel, kind: str) -> dict[str, str]:
        ids, owner, entry_vectors = self._entries(model, kind)
        if not len(owner):
            return {}
        sims = vectors @ entry_vectors.T  # (phrases, words)
        per_entry = np.full((len(vectors), len(ids)), -1.0)
        for n in range(len(ids)):
            cols = owner == n
            if cols.any():
                per_entry[:, n] = sims[:, cols].max(axis=1)
        found: dict[str, tuple[float, str]] = {}
        for phrase, row in zip(candidates, per_entry):
            order = np.argsort(-row)
            best, second = row[order[0]], (row[order[1]] if len(order) > 1 else -1.0)
            if best >= FLOOR and best - second >= MARGIN and best > found.get(ids[order[0]], (0.0, ""))[0]:
                found[ids[order[0]]] = (float(best), phrase)
        return {i: found[i][1] for i in sorted(found, key=lambda i: found[i][0], reverse=True)}

    def near(self, model: SemanticModel, question: str, m: Mentions) -> Mentions:
        """`m` with the entries near the question's unread phrases (`near_measures`, `near_dimensions`)."""
        candidates = phrases(question, read_words(m, model, question))
        if not candidates:
            return m
        vectors = self._embedder.embed(candidates)
        # a question asking to see rows ("list everyone who registered yesterday: name, city") is a list:
        # a measure only a phrase is near would turn it into totals
        measures = {} if m.listing else self._closest(candidates, vectors, model, "measures")
        return replace(m, near_measures=measures,
                       near_dimensions=self._closest(candidates, vectors, model, "dimensions"))
