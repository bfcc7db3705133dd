"""The user's language: Chinese when the text holds CJK characters, else English."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_lang(text: str) -> str:
    return "zh" if _CJK.search(text or "") else "en"


def pick(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en
