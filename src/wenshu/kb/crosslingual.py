"""A question searched in the documents' other language too: a Chinese question finds an English passage
and an English question a Chinese one, which neither the keyword index nor (reliably) the multilingual
embedder do on their own. The chat model translates the question once a turn (`prompts/kb_translate.md`,
a short greedy call made aside: the embedded model's context is put back after it, so the next step reuses
what the last one read), when the turn's first step is a documents search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.errors import WenshuError
from wenshu.i18n import detect_lang, pick
from wenshu.prompts import render

TRANSLATION_TOKENS = 80  # a question, not a passage
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def other_language(text: str) -> str:
    """"en" for a Chinese text, "zh" for any other."""
    return "en" if detect_lang(text) == "zh" else "zh"


def translate(models, text: str) -> str:
    """The question in the other language (one line), or "" when the model fails: the search goes on without
    it. `models`: providers.base.ModelClient."""
    language = pick(other_language(text), "English", "Chinese (简体中文)")
    messages = [SystemMessage(render("kb_translate", language=language).strip()), HumanMessage(text)]
    try:
        out = models.text("fast", messages, max_tokens=TRANSLATION_TOKENS, temperature=0, aside=True)
    except WenshuError:
        return ""
    line = next((s.strip() for s in str(out).splitlines() if s.strip()), "")
    return "" if line.casefold() == text.strip().casefold() else line


def written_in(text: str) -> str:
    """"zh" for a text mostly Chinese (as many Chinese characters as English words, or more), else "en": an
    English passage that names one Chinese term is still English."""
    return "zh" if len(_HAN.findall(text)) >= max(1, len(_LATIN_WORD.findall(text))) else "en"


def read_across(request: str, passages: list) -> bool:
    """Whether any of the passages is written in the other language than the request."""
    lang = detect_lang(request)
    return any(written_in(p.text) != lang for p in passages)


@dataclass
class Translation:
    """The request in the other language for a turn's searches, made before the turn's first model step,
    "" until then (or when the translation failed)."""

    text: str = ""

    def fill(self, models, request: str) -> None:
        self.text = translate(models, request)

    def __call__(self, request: str) -> str:
        return self.text
