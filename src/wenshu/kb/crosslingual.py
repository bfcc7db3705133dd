"""A question searched in the documents' other language too: a Chinese question finds an English passage
and an English question a Chinese one, which neither the keyword index nor (reliably) the multilingual
embedder do on their own. The chat model translates the question once a turn (`prompts/kb_translate.md`,
a short greedy call made aside: the embedded model's context is put back after it, so the next step reuses
what the last one read), when the turn's first step is a documents search.

With setting `kb_read_in_passage_language`, a small model also reads the passages in their own language:
when most passages the turn found are in the request's other language, the answer step is asked the
translated request, answers in the passages' language, and the answer is translated back
(`prompts/kb_translate_answer.md`): the embedded model reads a Chinese rule well for a Chinese question
and badly for an English one (docs/kb.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.errors import WenshuError
from wenshu.i18n import detect_lang, pick
from wenshu.prompts import render

TRANSLATION_TOKENS = 80  # a question, not a passage
ANSWER_TOKENS = 320  # an answer translated back: a few sentences, or a short table
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def other_language(text: str) -> str:
    """"en" for a Chinese text, "zh" for any other."""
    return "en" if detect_lang(text) == "zh" else "zh"


def text_language(text: str) -> str:
    """"zh" for a text mostly in Chinese (a Chinese character against three Latin letters), "en" otherwise: an
    English passage that quotes a Chinese term stays English."""
    return "zh" if len(_CJK.findall(text or "")) * 3 >= max(1, len(_LATIN.findall(text or ""))) else "en"


def _language_name(lang: str) -> str:
    return pick(lang, "English", "Chinese (简体中文)")


def _ask(models, prompt: str, language: str, text: str, max_tokens: int) -> str:
    messages = [SystemMessage(render(prompt, language=language).strip()), HumanMessage(text)]
    try:
        return str(models.text("fast", messages, max_tokens=max_tokens, temperature=0, aside=True)).strip()
    except WenshuError:
        return ""


def translate(models, text: str) -> str:
    """The question in the other language (one line), or "" when the model fails: the search goes on without
    it. `models`: providers.base.ModelClient."""
    out = _ask(models, "kb_translate", _language_name(other_language(text)), text, TRANSLATION_TOKENS)
    line = next((s.strip() for s in out.splitlines() if s.strip()), "")
    return "" if line.casefold() == text.strip().casefold() else line


def passages_language(request: str, passages: list) -> str | None:
    """The language to read the passages in when it is not the request's: the other language, when most of
    the passages (kb.search.Passage) are written in it; None otherwise."""
    other = other_language(request)
    written = [text_language(p.text) for p in {p.chunk_id: p for p in passages}.values()]
    return other if written and sum(w == other for w in written) * 2 > len(written) else None


def translate_answer(models, answer: str, lang: str) -> str:
    """An answer written in the passages' language, in the user's `lang`; the answer as it is when the model
    fails or returns nothing (a figure in the wrong language beats none)."""
    if text_language(answer) == lang:  # the model answered in the user's language after all
        return answer
    return _ask(models, "kb_translate_answer", _language_name(lang), answer, ANSWER_TOKENS) or answer


@dataclass
class Translation:
    """The request in the other language for a turn's searches, made before the turn's first model step,
    "" until then (or when the translation failed)."""

    text: str = ""

    def fill(self, models, request: str) -> None:
        self.text = translate(models, request)

    def __call__(self, request: str) -> str:
        return self.text
