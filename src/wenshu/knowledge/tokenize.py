"""Words for keyword search and value matching, in Chinese and English.

- identifiers are split into words: `order_items` -> order, item; `customerID2` -> customer, id, 2;
- English words are lower-cased and lightly stemmed (a plural "s"/"es"/"ies" is dropped);
- Chinese runs are segmented with jieba (search mode, so "华东区" also yields "华东") plus character
  bigrams, which keeps recall up when jieba's dictionary splits a business word differently;
- `ngrams` lists the question's Chinese character n-grams and English word n-grams for value matching.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_ASCII = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOPWORDS = frozenset(
    "a an and are as at be by do does did for from has have how i in is it its me of on or show "
    "that the their them there these this those to was were what when where which who whom whose "
    "with list give find tell all each every any please number many much".split()
)
CJK_STOP = frozenset("的 了 是 在 和 与 及 或 有 我 你 他 她 它 们 请 给 吗 呢 吧 个 各 每 哪 什么 多少 查询 一下 一个 列出 显示".split())


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def stem(word: str) -> str:
    """A light English stemmer: plural endings only (cities -> city, boxes -> box, orders -> order)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def split_identifier(name: str) -> list[str]:
    """snake_case, camelCase and digits -> lower-case words (`orderDate_2` -> order, date, 2)."""
    words: list[str] = []
    for part in _ASCII.findall(name):
        words.extend(w.lower() for w in _CAMEL.findall(part))
    return words


def english_words(text: str) -> list[str]:
    """Stemmed lower-case words of the ASCII parts of a text, identifiers split, stopwords dropped."""
    out = []
    for word in split_identifier(text):
        if word not in STOPWORDS:
            out.append(stem(word))
    return out


def chinese_words(text: str, bigrams: bool = True) -> list[str]:
    """jieba search-mode words plus (unless `bigrams` is off) character bigrams of every CJK run."""
    out: list[str] = []
    for run in _CJK.findall(text):
        out.extend(w for w in _jieba().lcut_for_search(run) if w not in CJK_STOP and _CJK.fullmatch(w))
        if bigrams:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        if len(run) == 1 and run not in CJK_STOP:
            out.append(run)
    return out


def tokens(text: str) -> list[str]:
    """Keyword-search terms of a text: English words (stemmed, identifiers split) and Chinese words."""
    if not text:
        return []
    return english_words(text) + chinese_words(text)


def ngrams(text: str, max_cjk: int = 8, max_words: int = 4) -> set[str]:
    """Candidate literals of a question: CJK n-grams (1..max_cjk chars) and English word n-grams."""
    grams: set[str] = set()
    for run in _CJK.findall(text):
        for n in range(1, min(max_cjk, len(run)) + 1):
            grams.update(run[i : i + n] for i in range(len(run) - n + 1))
    words = re.findall(r"[A-Za-z0-9][A-Za-z0-9'.&-]*", text)
    words = [w.rstrip(".'").lower() for w in words]
    for n in range(1, max_words + 1):
        for i in range(len(words) - n + 1):
            gram = " ".join(words[i : i + n])
            if n > 1 or gram not in STOPWORDS:
                grams.add(gram)
    quoted = re.findall(r"[\"“'‘「]([^\"”'’」]{1,60})[\"”'’」]", text)
    grams.update(q.strip().lower() for q in quoted if q.strip())
    return grams


def in_dictionary(text: str) -> bool:
    """Whether jieba's dictionary holds `text` as a word of its own ("区间", "市场"; not "区的")."""
    return bool(_jieba().dt.FREQ.get(text))
