"""Values a question leaves out rather than keeps: "除了华东以外", "不含生鲜水果和食品饮料", "华东除外",
"把上海去掉", "excluding the app channel", "leave out the food & beverage category", "other than Beijing and Shanghai".

A value is left out when an exclusion word stands just before it (a "the" or "all" between allowed), when
"以外 / 之外 / 除外 / excluded" follows it, or 把 before it and 去掉 after it, or when it is joined by 和 / 、 / and to a value left out just
before it. The dimension is then filtered with NOT IN. With something left out, "其他 / other / the rest"
names the remaining members, not a value spelt 其他 (the demo's city tier "其他" is one).
"""

from __future__ import annotations

import re

_BEFORE = re.compile(
    r"(除了|除去|除开|除|不含|不包括|不包含|不计|不算|排除|剔除|去掉|去除|刨去|刨除|扣除|扣掉"
    r"|\bexcluding|\bexclude|\bexcept(?:\s+for)?|\bother\s+than|\bapart\s+from|\baside\s+from"
    r"|\bleav(?:e|ing)\s+out|\bleft\s+out|\bnot\s+counting|\bminus|\bbut\s+not|\bignoring|\bignore|\bdrop(?:ping)?|\bremov(?:e|ing)|\btak(?:e|ing)\s+out)"
    r"\s*(?:the\s+|all\s+|any\s+|of\s+the\s+)?$", re.I)
_AFTER = re.compile(r"\s*的?\s*(以外|之外|除外|不算|不计|\bexcluded\b)")  # "已取消的除外"
_TAKEN_OUT = re.compile(r"[^，。？！,.?!的]{0,4}?(?:给)?(去掉|去除|剔除|拿掉|排除|扣掉|刨掉)")  # 把上海去掉, 把App渠道去掉
_JOIN = re.compile(r"\s*(和|与|及|、|,|，|或|&|\band\b|\bor\b)\s*")
_REST = {"其他", "其它", "其余", "别的", "other", "others", "rest"}


def left_out(question: str, value_at: dict[str, list[tuple[int, int]]]) -> list[str]:
    """The dimensions whose named values the question leaves out (each said as left out)."""
    spans = sorted((s, e, did) for did, at in value_at.items() for s, e in at)
    out_spans: list[tuple[int, int]] = []
    for s, e, _ in spans:
        if question[s:e].casefold() in _REST:
            continue  # "除了华东，其他大区": the rest is kept, not left out
        joined = any(_JOIN.fullmatch(question[pe:s]) for _, pe in out_spans)
        taken_out = re.search(r"把\s*$", question[:s]) and _TAKEN_OUT.match(question[e:])
        if _BEFORE.search(question[:s]) or _AFTER.match(question[e:]) or joined or taken_out:
            out_spans.append((s, e))
    for s, e, _ in reversed(spans):  # "华南、华北除外": joined to one left out after it
        if (s, e) not in out_spans and any(_JOIN.fullmatch(question[e:ns]) for ns, _ in out_spans if ns >= e):
            out_spans.append((s, e))
    return [did for did, at in value_at.items() if at and all(span in out_spans for span in at)]


def left_out_words(question: str, spans: list[tuple[int, int]], values: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans (a measure's words) an exclusion word stands just before that hold a named value: "excluding
    refunded orders" leaves the refunded status out; it counts no refunded orders."""
    return [(s, e) for s, e in spans if _BEFORE.search(question[:s]) and any(s <= a and b <= e for a, b in values)]


def the_rest(question: str, value_at: dict[str, list[tuple[int, int]]], left: list[str]) -> list[str]:
    """With something left out, the dimensions whose only named value is a word for "the others" (其他品类:
    the remaining categories, not the city tier 其他)."""
    if not left:
        return []
    return [did for did, at in value_at.items() if did not in left and at
            and all(question[s:e].casefold() in _REST for s, e in at)]
