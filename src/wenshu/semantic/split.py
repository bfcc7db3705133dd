"""A question too wide for one query, split into sub-questions by the semantic model's own reading of it.

One plan answers all its measures over one time window, with one comparison and one set of splits. A
question whose parts, joined by a conjunction (以及, 和, 并且, ；, "and", "as well as", …), each name measures
of the model and ask for a different window or a different split cannot be one plan nor one honest query:
it becomes one sub-question per part, each of which the data pipeline answers on its own. What decides is
the model's reading (`semantic.mentions.read`, the time-phrase resolver), never a list of phrasings.

Not split:
- a part that names no measure of the model joins the part after it ("华东和华南的GMV", "上个月和这个月"),
  and a conjunction inside a name of the model ("refund reason and amount" where that is one word) is no join;
- parts that agree (several measures over one window and one split: "上个月各大区的GMV和订单量" is one plan;
  a part that names no window or no split agrees with any);
- a question that compares (同比, 环比, "versus", 对比): one plan compares its periods or values;
- more than `MAX_PARTS` parts, and any question of a datasource with no semantic model.

A part that names no window is asked with the window another part names ("上个月各大区的GMV，以及各品类的
销量": the categories' units are last month's too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wenshu.i18n import detect_lang
from wenshu.knowledge.time_phrases import find_windows
from wenshu.semantic.labels import label_words
from wenshu.semantic.mentions import cue, read
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import entry_words
from wenshu.semantic.windows import question_window

MAX_PARTS = 4
JOINS = re.compile(r"[；;]|[，,]?\s*(?:以及|并且|另外|同时|此外|还有|和|与|跟|及)"
                   r"|\s*[,;]?\s*\b(?:and also|as well as|and|plus|along with)\b\s*", re.I)  # fmt: skip
_COMPARES = ("yoy", "week", "previous", "versus")


@dataclass(frozen=True)
class Part:
    text: str
    measures: tuple[str, ...]
    window: tuple | None  # (start, end) dates, or None when the part names no period
    phrase: str  # the period as the part writes it ("" when none)
    shape: tuple  # (splits, grain): the rows the part asks for; () when one total


def _named_spans(model: SemanticModel, question: str) -> list[tuple[int, int]]:
    """Where the model's own words (measures, ratios, dimensions, their values, records) stand in the question."""
    words = {f"m:{e.id}": entry_words(model, e) for e in [*model.measures, *model.ratios]}
    words |= {f"d:{d.id}": d.words() for d in model.dimensions} | {f"r:{r.id}": r.words() for r in model.records}
    for d in model.dimensions:
        words |= {f"v:{d.id}:{code}": ws for code, ws in label_words(d).items()}
    return Spans.find(question, words).spans()


def _pieces(model: SemanticModel, question: str) -> list[tuple[int, int]]:
    """The question cut at each conjunction that stands outside the model's own words."""
    named = _named_spans(model, question)
    cuts = [m.span() for m in JOINS.finditer(question)
            if not any(s < m.end() and m.start() < e for s, e in named)]  # fmt: skip
    bounds, start = [], 0
    for s, e in cuts:
        bounds.append((start, s))
        start = e
    bounds.append((start, len(question)))
    return [(s, e) for s, e in bounds if question[s:e].strip()]


def _part(model: SemanticModel, text: str) -> Part:
    m = read(model, text)
    window = question_window(text)
    found = find_windows(text, "sqlite")
    shape = (tuple(sorted(m.split)), m.grain) if (m.split or m.grain) else ()
    return Part(text.strip(" ,，、;；"), tuple(m.measures), (window.start, window.end) if window else None,
                found[0].phrase if found else "", shape)  # fmt: skip


def _grouped(model: SemanticModel, question: str) -> list[Part]:
    """Pieces joined into parts: a piece naming no measure goes with the piece after it (the last with the one before)."""
    groups: list[tuple[int, int]] = []
    pending: int | None = None
    for s, e in _pieces(model, question):
        start = s if pending is None else pending
        if read(model, question[s:e]).measures:
            groups.append((start, e))
            pending = None
        else:
            pending = start
    if pending is not None and groups:
        groups[-1] = (groups[-1][0], len(question))
    return [_part(model, question[s:e]) for s, e in groups]


def _differ(a, b) -> bool:
    return bool(a) and bool(b) and a != b


def _with_window(part: Part, phrase: str, lang: str) -> str:
    if part.window is not None or not phrase:
        return part.text
    return f"{phrase}{part.text}" if lang == "zh" else f"{part.text} {phrase}"


def sub_questions(model: SemanticModel | None, question: str) -> list[str]:
    """The question's sub-questions when it is too wide for one query, else [] (ask it as it is)."""
    if model is None or any(cue(kind, question) for kind in _COMPARES):
        return []
    parts = _grouped(model, question)
    if not 2 <= len(parts) <= MAX_PARTS:
        return []
    wide = any(_differ(a.window, b.window) or _differ(a.shape, b.shape)
               for i, a in enumerate(parts) for b in parts[i + 1 :])  # fmt: skip
    if not wide:
        return []
    phrase = next((p.phrase for p in parts if p.phrase), "")
    lang = detect_lang(question)
    return [_with_window(p, phrase, lang) for p in parts]
