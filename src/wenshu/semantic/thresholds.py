"""Thresholds in a question: each "more than N" / "N以上" with its operator, value and stretch of text
("退款金额超过1000元", "orders over ¥8,000", "3千元以上", "at least 5 units"). Numbers of days, weeks,
months or years are windows, not thresholds. What a threshold bounds is read elsewhere
(`semantic.fields` for a detail list's rows, `semantic.bounds` for a plan of totals).
"""

from __future__ import annotations

import re
from wenshu.knowledge.compiled import rx
from dataclasses import dataclass

_UNITS = r"(?:\s*(?:元|块钱?|件|单|笔|人|次|yuan|rmb|cny|units?|items?|times\b))?"
_NUMBER = r"(\d[\d,]*(?:\.\d+)?)\s*(?:个(?=亿))?(万|千|百万|百(?![万亿])|亿|k\b|w\b|thousand\b|million\b)?(?!\d|\s*(?:天|日|周|个?月|年|小时|个?季度)|\s*(?:days?|weeks?|months?|years?|hours?|quarters?)\b)"
# operator words before the number, or after it (3000元以上); the op as the plan writes it
_BEFORE = (
    (r"不少于|不低于|至少|大于等于|满|>=|≥|\bat least\b|\bno less than\b|\bnot less than\b", "gte"),
    (r"不超过|不高于|最多|小于等于|<=|≤|\bat most\b|\bno more than\b|\bup to\b", "lte"),
    (r"超过|大于|高于|多于|不止|不只|>|\bover\b|\babove\b|\bmore than\b|\bgreater than\b|\bexceeding\b|\bhigher than\b|\b(?:bigger|larger) than\b|\bin excess of\b", "gt"),
    (r"低于|小于|少于|不足|不到|不满|<|\bunder\b|\bbelow\b|\bless than\b|\bfewer than\b|\blower than\b|\bsmaller than\b", "lt"),
    (r"只|仅|恰好|正好|刚好|\bexactly\b", "eq"),  # "只买过一次", "exactly 2 orders", "only once": that many, no other
)
_AFTER = ((r"以上|及以上|或以上|\bor more\b|\band above\b|\bplus\b", "gte"),
          (r"以下|及以下|或以下|\bor less\b|\band below\b", "lte"))
_CURRENCY = r"(?:[¥￥$€]|rmb|cny|usd)?\s*"  # "over ¥5,000": a sign before the number
# a range, both ends included: "在200到500元之间", "介于1千至2千", "between 200 and 500 yuan"
# (no "-" between the ends: "在2025-11-01到…之间" is a date)
_RANGE = (rf"(?:(?:在|介于)\s*{_CURRENCY}{_NUMBER}{_UNITS}\s*(?:到|至|~|～)\s*{_CURRENCY}{_NUMBER}{_UNITS}\s*(?:之间)?"
          rf"|{_CURRENCY}{_NUMBER}{_UNITS}\s*(?:到|至|~|～)\s*{_CURRENCY}{_NUMBER}{_UNITS}\s*之间)",
          rf"\bbetween\s+{_CURRENCY}{_NUMBER}{_UNITS}\s+and\s+{_CURRENCY}{_NUMBER}{_UNITS}")
_SCALE = {"亿": 100_000_000, "万": 10_000, "w": 10_000, "千": 1_000, "k": 1_000, "百": 100, "百万": 1_000_000, "thousand": 1_000,
          "million": 1_000_000}
_ROUND = r"(?:过|破|超)(百万|千|万|亿)(?![万亿])"  # "金额过千的", 破万, 破百万, 破亿: more than a thousand, ten thousand, …
# small numbers in words ("three or more paid orders", "超过三单"), read as digits padded to the word's length so
# every stretch of text keeps its place; a Chinese one only before a unit of counting (不到一半 is no bound),
# and never "one" / 一 ("at least one item" asks for rows that have any)
_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "twelve": 12, "fifteen": 15, "twenty": 20}
_CN_WORDS = {"二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十五": 15, "二十": 20}
_CN_UNIT = r"(?=\s*(?:单|笔|件|次|个|位|家|款|人|天))"
# a part of a million or a thousand said in words ("three quarters of a million", "half a million", "a million")
_PARTS = {"a": 1, "one": 1, "half": 0.5, "a half": 0.5, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75,
          "a third": 1 / 3, "two thirds": 2 / 3}
_PART_OF = r"\b(" + "|".join(k.replace(" ", r"\s+") for k in sorted(_PARTS, key=len, reverse=True)) + \
    r")(?:\s+of)?(?:\s+an?)?\s+(million|thousand)\b"

_AND_A_HALF = r"\b(" + "|".join(_WORDS) + r")\s+and\s+a\s+half\s+(thousand|million)\b"


@dataclass(frozen=True)
class Threshold:
    start: int
    end: int
    op: str  # gt | gte | lt | lte
    value: float | int


def thresholds(question: str) -> list[Threshold]:
    """Each "more than N" / "N以上" in the question, with its stretch of text; a range ("200到500元之间",
    "between 200 and 500") is two, at least its low end and at most its high end."""
    out: list[Threshold] = []
    question = _digits(question)
    for pattern in _RANGE:
        for m in rx(pattern, re.I).finditer(question):
            lo = 1 if m.group(1) is not None else 5  # the number groups of the alternative that matched
            low, high = m.group(lo, lo + 1), m.group(lo + 2, lo + 3)
            mid = m.start(lo + 2)
            out += [Threshold(m.start(), mid, "gte", _value(*low)), Threshold(mid, m.end(), "lte", _value(*high))]
    for words, op in _BEFORE:  # "超过了250万": an aspect word between
        for m in rx(rf"({words})\s*(?:(?<!最多)(?<!最少)[\u4e00-\u9fff]{{1,2}}?)?了?\s*{_CURRENCY}{_NUMBER}{_UNITS}", re.I).finditer(question):  # "至少成交两单": a verb between (not 卖得最多的5个, the top five)
            if op == "eq" and not (rx(r"exactly", re.I).search(m.group(0)) or rx(r"[次单笔]$").search(m.group(0))
                                   and rx(r"(只|仅|恰好|正好|刚好)([\u4e00-\u9fff]?[过了])?\s*\d").match(m.group(0))):
                continue  # 只有5个城市, 只看前5单: no bound; 只买过一次, 仅一单, "exactly 2 orders": that many acts
            out.append(Threshold(m.start(), m.end(), op, _value(m.group(2), m.group(3))))
    for words, op in _AFTER:
        for m in rx(rf"{_CURRENCY}{_NUMBER}{_UNITS}\s*({words})", re.I).finditer(question):
            if rx(r"\b(?:top|bottom)\s*$", re.I).search(question[:m.start()]) or rx(r",\s*plus$", re.I).search(m.group(0)):
                continue  # "just the top 3, plus gross margin": a top N, and a measure added
            out.append(Threshold(m.start(), m.end(), op, _value(m.group(1), m.group(2))))
    out += [Threshold(m.start(), m.end(), "gt", _SCALE[m.group(1)]) for m in rx(_ROUND).finditer(question)]
    out += [Threshold(m.start(), m.end(), "eq", 1) for m in rx(r"\b(?:only|just|exactly) once\b", re.I).finditer(question)]
    out.sort(key=lambda t: t.start)
    return [t for i, t in enumerate(out) if not any(o.start < t.end and t.start < o.end for o in out[:i])]


def _digits(question: str) -> str:
    """The question with small numbers written as words turned into digits, each stretch the same length."""
    def pad(m: re.Match, value: int) -> str:
        return str(value).ljust(len(m.group(0))) if len(str(value)) <= len(m.group(0)) else m.group(0)

    out = re.sub(_AND_A_HALF, lambda m: pad(m, round((_WORDS[m.group(1).lower()] + 0.5) * _SCALE[m.group(2).lower()])),
                 question, flags=re.I)  # "four and a half thousand": 4500
    out = re.sub(_PART_OF, lambda m: pad(m, round(_PARTS[" ".join(m.group(1).lower().split())] * _SCALE[m.group(2).lower()])),
                 out, flags=re.I)  # "three quarters of a million", "half a million", "a million": the number
    out = re.sub(r"\b(" + "|".join(_WORDS) + r")\b", lambda m: pad(m, _WORDS[m.group(1).lower()]), out, flags=re.I)
    out = re.sub(r"\b(than|least|most|over) (once|twice)\b",
                 lambda m: f"{m.group(1)} {'1' if m.group(2).lower() == 'once' else '2'}".ljust(len(m.group(0))),
                 out, flags=re.I)  # "more than once", "at least twice": a number of times
    out = re.sub(r"(?<=不止|不只|超过|多于)一(?=\s*(?:单|笔|件|次|个|位|家|款))", "1", out)  # 不止一单: more than one
    out = re.sub(r"(?<=[只仅])([\u4e00-\u9fff]{0,2}?)一(?=\s*(?:单|笔|次))", r"\g<1>1", out)  # 只买过一次: once
    digit = {c: str(_CN_WORDS.get(c, 1)) for c in "一二两三四五六七八九"}
    out = re.sub(r"(?<![\d一二两三四五六七八九十])([一二两三四五六七八九])([万千])([一二三四五六七八九])(?:千|百)?(?![十百零])",
                 lambda m: (digit[m.group(1)] + digit[m.group(3)] + ("千" if m.group(2) == "万" else "百")).ljust(
                     len(m.group(0))), out)  # 一万五 (15千), 三千五 (35百): a digit after the scale is the next one down
    out = re.sub(r"(?<![\d一二两三四五六七八九十])([一二两三四五六七八九])(?=[千万亿](?![一二两三四五六七八九十百零])|百(?![万亿零十]))",  # 一万块以上, 两千: one digit
                 lambda m: str(_CN_WORDS.get(m.group(1), 1)), out)  # before its scale, the same length
    return re.sub("(" + "|".join(sorted(_CN_WORDS, key=len, reverse=True)) + ")" + _CN_UNIT,
                  lambda m: pad(m, _CN_WORDS[m.group(1)]), out)


def _value(number: str, scale: str | None) -> float | int:
    v = float(number.replace(",", "")) * _SCALE.get((scale or "").lower(), 1)
    return int(v) if v.is_integer() else v
