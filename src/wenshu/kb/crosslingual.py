"""A question searched in the documents' other language too: a Chinese question finds an English passage
and an English question a Chinese one, which neither the keyword index nor (reliably) the multilingual
embedder do on their own. The chat model translates the question once a turn (`prompts/kb_translate.md`,
a short greedy call made aside: the embedded model's context is put back after it, so the next step reuses
what the last one read), when the turn's first step is a documents search.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.errors import WenshuError
from wenshu.i18n import detect_lang, pick
from wenshu.prompts import render

TRANSLATION_TOKENS = 80  # a question, not a passage


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


@dataclass
class Translation:
    """The request in the other language for a turn's searches, made before the turn's first model step,
    "" until then (or when the translation failed)."""

    text: str = ""

    def fill(self, models, request: str) -> None:
        self.text = translate(models, request)

    def __call__(self, request: str) -> str:
        return self.text
