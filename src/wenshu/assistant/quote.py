"""The sentence a final answer stands on (setting `kb_quote`).

Once passages came back, the embedded model's final answer first copies the sentence of a passage that
answers the question (`"quote"`), chosen under the step's JSON schema from the sentences of the passages
(an enum: it cannot invent one), or "" when none does. The answer is then written right after that sentence,
so a small model states what the sentence says instead of what the question asked or another passage said.
The host cites the passage that holds the quote first; an empty quote is "not in the documents".
"""

from __future__ import annotations

import re

MAX_SENTENCES = 40
MIN_CHARS = 6
MAX_CHARS = 160  # a longer sentence is offered as its first part: the quote costs a token a character or so
_BREAK = re.compile(r"\n+|(?<=[。！？；!?;])|(?<=[.:])\s+")
_WORDS = re.compile(r"[0-9A-Za-z\u4e00-\u9fff]")
_CUT = re.compile(r"[，,、\s][^，,、\s]*$")


def _plain(text: str) -> str:
    """Whitespace runs as one space, and a double quote as a single one: llama-cpp-python 0.3.36 writes an enum
    value holding `"` into a grammar its parser rejects (and the process then crashes)."""
    return " ".join(text.split()).replace('"', "'")


def _shortened(sentence: str) -> str:
    """At most MAX_CHARS, cut after the last comma or space before the limit where there is one."""
    if len(sentence) <= MAX_CHARS:
        return sentence
    head = sentence[:MAX_CHARS]
    cut = _CUT.search(head)
    return head[: cut.start()] if cut and cut.start() > MAX_CHARS // 2 else head


def sentences(passages: list) -> list[str]:
    """The sentences of the passages in the order the tool returned them, once each: lines, then sentences by
    their end marks (Chinese and English); a table row is one; a line with no letter, digit or CJK character
    (a table's rule) or shorter than MIN_CHARS is left out."""
    found: dict[str, None] = {}
    for text in dict.fromkeys(p.text for p in passages):
        for part in _BREAK.split(text):
            s = _shortened(_plain(part))
            if len(s) >= MIN_CHARS and len(_WORDS.findall(s)) >= 3:
                found.setdefault(s)
    return list(found)[:MAX_SENTENCES]


def quote_schema(passages: list) -> dict:
    """The `quote` property of the final answer: one of the passages' sentences, or "" when none answers."""
    return {"enum": [*sentences(passages), ""]}


def holds(passage_text: str, quote: str) -> bool:
    """Whether a passage holds the quote (read as `sentences` offered it: whitespace and double quotes aside)."""
    squash = lambda text: "".join(_plain(text).split())  # noqa: E731
    return bool(quote) and squash(quote) in squash(passage_text)
