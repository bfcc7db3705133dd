"""Shorthand people type, spelled out before a question is read: "last wk", "2 wks", "Q3 last yr", "yday", "w/ % chg",
"above 8k", "conv rates", 上Q, 昨儿. These are the language's abbreviations, not any datasource's words: the semantic
model, the time phrases and the value index then read the question as if it had been written out."""

from __future__ import annotations

import re

from wenshu.knowledge.compiled import rx

# (pattern, replacement), English on word boundaries, case-insensitive
_EN = [
    (r"(?<=\d)\s*wks?\b|\bwks\b", lambda m: " weeks" if m.group(0).strip().lower().endswith("s") else " week"),
    (r"\bwk\b", "week"), (r"(?<=\d)\s*(?:yrs|yr)\b", " years"), (r"\byrs\b", "years"), (r"\byr\b", "year"),
    (r"(?<=\d)\s*(?:mos|mths|mnths)\b", " months"), (r"\b(?:mos|mths|mnths)\b", "months"), (r"\b(?-i:mo|mth)\b", "month"),
    (r"\bqtrs\b", "quarters"), (r"\bqtr\b", "quarter"), (r"\b(?:yday|yest|ystd)\b", "yesterday"), (r"\btdy\b", "today"),
    (r"\b(?:pls|plz)\b", "please"), (r"\bw/o\b", "without"), (r"\bw/(?=\s|\w)", "with "), (r"\bchg\b", "change"),
    (r"\bconv\b", "conversion"), (r"\bavg\b", "average"), (r"\bprev\b", "previous"), (r"\bpct\b", "percent"),
    (r"\bqty\b", "quantity"), (r"\bamt\b", "amount"), (r"\bcusts\b", "customers"), (r"\bcust\b", "customer"),
    (r"#\s*of\b", "number of"),
    # "above 8k", "1.5k yuan": thousands
    (r"(?<![\w.])(\d+(?:\.\d+)?)\s*k\b", lambda m: _thousands(m.group(1))),
    # money said with a sign and no number ("monthly refund $"): the amount
    (r"(?<=\w)\s*\$(?!\s*\d)", " amount"), (r"\$\s*(?=\d)", ""),
]
_ZH = [(r"上Q(?![\dA-Za-z])", "上季度"), (r"(?:本|这)Q(?![\dA-Za-z])", "本季度"), (r"昨儿个?", "昨天"), (r"今儿个?", "今天"),
       (r"前儿个?", "前天")]


def _thousands(number: str) -> str:
    value = float(number) * 1000
    return str(int(value)) if value.is_integer() else str(value)


def expand(text: str) -> str:
    """`text` with its shorthand spelled out; unchanged (to the character) when it has none."""
    out = text
    for pattern, said in _EN:
        out = rx(pattern, re.I).sub(said, out)
    for pattern, said in _ZH:
        out = rx(pattern).sub(said, out)
    return text if out == text else rx(r"(?<=\S) {2,}(?=\S)").sub(" ", out)
