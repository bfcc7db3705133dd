"""Cross-lingual value linking: the Chinese words of a question matched to the values an English
database stores (法国 -> 'France', 女 -> 'F'emale labels, 计算机科学 -> 'Computer Science').

The exact and fuzzy matchers of `value_index` compare text, so a Chinese question never reaches an
English value. Here the question's Chinese words (jieba) and the catalog's sampled Latin-script
values are embedded with the same multilingual embedder as schema recall, and a word links to a value
when their cosine is high and clearly above the word's next-best value. Nothing is translated and no
word list is involved: what links is decided by the catalog's own values and the embedder.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from wenshu.knowledge.tokenize import _CJK, CJK_STOP, _jieba
from wenshu.knowledge.value_index import ValueEntry, ValueHit, ValueIndex

MIN_SIMILARITY = 0.75  # word-to-value cosine (a translation pair scores about 0.8-0.95)
MIN_MARGIN = 0.08  # ... and this far above the word's best other value
MAX_LABELS = 5000  # values embedded per catalog (sampled values are already bounded per column)
MAX_LABEL_LEN = 40
_LATIN = re.compile(r"[A-Za-z]")


def _linkable(label: str) -> bool:
    return 2 <= len(label) <= MAX_LABEL_LEN and bool(_LATIN.search(label)) and not _CJK.search(label)


def _parts(word: str) -> list[str]:
    """A word and, where it is a modifier plus a dictionary word (女+歌手, 歌手+们), its two parts."""
    if len(word) < 3:
        return [word]
    known = _jieba().dt.FREQ
    out = [word]
    if known.get(word[1:]):
        out += [word[0], word[1:]]
    if known.get(word[:-1]):
        out += [word[:-1], word[-1]]
    return out


def question_words(question: str) -> list[str]:
    """The Chinese words of a question (jieba's precise cut, compounds also in parts), without function words."""
    words: list[str] = []
    for run in _CJK.findall(question):
        for w in _jieba().lcut(run):
            for part in _parts(w):
                if part not in CJK_STOP and part not in words:
                    words.append(part)
    return words


@dataclass
class CrossLingualValues:
    labels: list[str]  # as stored (original case)
    entries: list[list[ValueEntry]]  # per label: the columns holding it
    vectors: np.ndarray  # (len(labels), dim), L2-normalised

    @classmethod
    def build(cls, values: ValueIndex, embedder, cache=None) -> CrossLingualValues:
        labels, entries = [], []
        for es in values.exact.values():
            plain = [e for e in es if not e.exact_only]
            if plain and _linkable(plain[0].label):
                labels.append(plain[0].label)
                entries.append(plain)
            if len(labels) >= MAX_LABELS:
                break
        return cls(labels, entries, _embed(embedder, labels, cache))

    def match(self, question: str, embedder) -> list[ValueHit]:
        words = question_words(question)
        if not words or not self.labels:
            return []
        sims = embedder.embed(words) @ self.vectors.T
        hits = []
        for i, word in enumerate(words):
            order = np.argsort(-sims[i])[:2]
            best = float(sims[i, order[0]])
            second = float(sims[i, order[1]]) if len(order) > 1 else 0.0
            if best >= MIN_SIMILARITY and best - second >= MIN_MARGIN:
                hits += [ValueHit(e.table, e.column, e.value, e.label, word, round(best, 4))
                         for e in self.entries[order[0]]]
        return hits


def _embed(embedder, labels: list[str], cache) -> np.ndarray:
    """Label vectors, through the embedding cache when there is one (keys: the label's text hash)."""
    if not labels:
        return np.zeros((0, 1), dtype=np.float32)
    keys = [hashlib.sha1(f"value\x00{label}".encode()).hexdigest() for label in labels]
    known = cache.get(embedder.name, keys) if cache is not None else {}
    todo = [i for i, k in enumerate(keys) if k not in known]
    if todo:
        fresh = embedder.embed([labels[i] for i in todo])
        if cache is not None:
            cache.put(embedder.name, [keys[i] for i in todo], fresh)
        known.update({keys[i]: fresh[j] for j, i in enumerate(todo)})
    return np.vstack([known[k] for k in keys]).astype(np.float32)
