"""A dimension named by one character after a split word: the last of its Chinese name (各区 for 大区, 每个市 for
城市) or a kind word its values' names take (各端: the channels, whose values are App端 and 网页端). Only right after
各 / 每个 / 不同 / 哪个 / 哪些 / 按, and not where 按 and the character are a word of their own (按时: on time).

What decides is the semantic model's own names: a character counts only when it ends the Chinese name (`zh`, not
a synonym), or follows another name of two values or more, of exactly one dimension (or of dimensions conformed to
each other) that is not a time nor a part of one (每日: daily). The character with the one after it must not be a
word of the language's dictionary ("各区间" is a range, "各市场" markets; 的 after it is a particle), nor may a
dimension's own word follow it ("每类商品": the products).
"""

from __future__ import annotations

import re

from wenshu.knowledge.tokenize import in_dictionary
from wenshu.semantic.labels import label_words
from wenshu.semantic.model import SemanticModel

_BEFORE = re.compile(r"(?:各个?|每一?个|不同的?|哪个|哪些|按照?)$")
_CJK = re.compile(r"[\u3400-\u9fff]")


def heads(model: SemanticModel) -> dict[str, str]:
    """Last character of a dimension's Chinese name, or a kind word put after the names of two members or more (App
    -> App端, 网页 -> 网页端: 端) -> that dimension, where it names no other dimension so (but one conformed to it)."""
    seen: dict[str, set[str]] = {}
    for d in model.dimensions:
        if d.kind == "time" or d.part:  # 每日 is daily, no kind of day
            continue
        if len(d.zh or "") >= 2 and _CJK.match(d.zh[-1]):
            seen.setdefault(d.zh[-1], set()).add(d.id)
        ends: dict[str, set[str]] = {}
        for code, words in label_words(d).items():  # a kind word put after another name of the same value
            names = {w.casefold() for w in words}
            for w in words:
                if len(w) >= 2 and _CJK.match(w[-1]) and w[:-1].casefold() in names:
                    ends.setdefault(w[-1], set()).add(code)
        for c in (c for c, codes in ends.items() if len(codes) > 1):
            seen.setdefault(c, set()).add(d.id)
    order = [d.id for d in model.dimensions]
    out = {}
    for c, ids in seen.items():
        first = min(ids, key=order.index)  # of dimensions that conform to each other (the orders' and the traffic's
        if ids <= {x.id for x in model.conformed(first)}:  # channel), the first declared: grounding takes its twin
            out[c] = first
    return out


def short_names(model: SemanticModel, question: str, taken: list[tuple[int, int]],
                names: list[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
    """Where a dimension is named by its name's last character after a split word (dimension id -> spans);
    `taken`: where the model's words already stand, `names`: where dimensions are named."""
    out: dict[str, list[tuple[int, int]]] = {}
    for char, did in heads(model).items():
        for m in re.finditer(re.escape(char), question):
            s, e = m.span()
            before = _BEFORE.search(question[:s])
            if not before or any(a < e and s < b for a, b in taken) or before.group() == "按" and in_dictionary(
                    question[s - 1:e]):
                continue  # 按时: on time
            after = question[e:e + 1]
            if after and (after != "的" and in_dictionary(question[s:e + 1]) or any(a == e for a, _ in names)):
                continue
            out.setdefault(did, []).append((s, e))
    return out
