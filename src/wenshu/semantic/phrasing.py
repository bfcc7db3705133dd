"""Phrases that change how the semantic model's names are read, in the languages' own words (no question
set's):

- a split said inside a measure's name: "各品牌销售额" names the item sales (the model lists 品牌销售额 as one
  of its words) and, after the split word 各, a split by brand: a measure's name may begin with a
  dimension's name, and after a split word (各, 按, by, per) that dimension is split as well;
- a record's word for a column that is no dimension (商品总额, 实付金额) names that field, so no value is read
  inside it;
- a list's order said in words: "most recent first", 按时间倒序 (newest first), "oldest first", 按时间顺序, "sorted
  by refund date", 按下单时间排序 (oldest first unless the words say newest). Such
  a phrase orders a list by its record's time; it is no split ("按时间" before 顺序 groups by no date) and no
  rank. "The 5 latest refunds" (最新的5笔退款) also bounds the list: the five newest rows.

(Tried and removed, 2026-12-04: reading two dimension names side by side as one noun whose head is last,
"product category". It fired on one development question, which stayed wrong for other reasons, and on two
demo questions, one of the test half losing its right answer: it paid nothing.)
"""

from __future__ import annotations

import re
from functools import lru_cache

from wenshu.knowledge.number_words import EN_NUM as _EN_NUM, NUM as _NUM, number as _number
from wenshu.knowledge.time_phrases import find_windows
from wenshu.semantic.model import PARTS, SemanticModel
from wenshu.semantic.spans import Spans
from wenshu.semantic.variants import entry_words

NEWEST_FIRST = re.compile(r"\b(?:sorted|ordered|sort|order)\s+by\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:date|time)s?\s*,?\s*"
                          r"(?:desc|descending)\b|按[^，。,\s]{0,6}(?:时间|日期)\s*排[序列]?\S{0,2}?(?:倒序|降序|从新到旧|由新到旧)"
                          r"|\b(most recent|newest|latest)(?:\s+[\w-]+){0,2}? first\b|\bin reverse (date|time|chronological) "
                          r"order\b|最新的?(在前|排在?前|放前面)|按[^，。,\s]{0,6}(时间|日期)的?\s*(倒序|降序|从新到旧|由新到旧|从近到远|从晚到早)"
                          r"|时间倒序|倒序排列|从新到旧|由新到旧|从近到远|从晚到早|由晚到早", re.I)
# "sorted by refund date", 按下单时间排序: a list in its time's order, oldest first unless a newest-first word says
_BY_TIME = r"\b(?:sorted|ordered|sort|order)\s+by\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:date|time)s?\b"
OLDEST_FIRST = re.compile(_BY_TIME + r"(?!\s*,?\s*(?:desc|descending|newest|latest|most recent|from new))"
                          r"|按[^，。,\s]{0,6}(时间|日期)(先后)?\s*排(序|列)?(?!\S{0,3}(倒|降|新到旧))"
                          r"|\b(oldest|earliest)(?:\s+[\w-]+){0,2}? first\b|\bin (date|time|chronological) order\b"
                          r"|按[^，。,\s]{0,6}(时间|日期)的?\s*(正序|顺序|先后|升序|从旧到新|由旧到新|从早到晚|从远到近)|时间顺序|从旧到新|由旧到新"
                          r"|从早到晚|由早到晚|从远到近", re.I)


# a superlative: 最高 / 最多 / 最好 … ("销售额最高的城市", "订单最多的那天")
SUPERLATIVE = r"最(?:高|低|多|少|大|小|好|差)"

# after a counted unit, a period word makes it a span of time: 前一个月, 最近3个月 (also the rank readings')
CJK_NOT_PERIOD = r"(?!(?:完整的?|整|自然){0,2}(?:月|星期|季度|小时|周|工作日|年|天|日))"  # 8个完整周, 十个完整自然周 too
_EN_NOT_PERIOD = r"(?!\s*(?:days?|weeks?|months?|quarters?|years?|hours?)\b)"
_ROWS = r"\s*(?:笔|条|单|个|位|次|件|名)" + CJK_NOT_PERIOD
# "the 5 latest refunds", "the last ten orders", 最新的5笔退款, 最近10条订单: the N newest rows ("the last 7 days" is a
# window, not rows: a period unit after the number is not read here)
LATEST_N = re.compile(r"\b" + _EN_NUM + r"\s+(?:most\s+recent|latest|newest)\b|\b(?:most\s+recent|latest|newest|last)\s+"
                      + _EN_NUM + r"\b" + _EN_NOT_PERIOD + r"|(?:最新|最近)的?\s*" + _NUM + _ROWS, re.I)
EARLIEST_N = re.compile(r"\b" + _EN_NUM + r"\s+(?:earliest|oldest)\b|\b(?:earliest|oldest)\s+" + _EN_NUM + r"\b"
                        + _EN_NOT_PERIOD + r"|最早的?\s*" + _NUM + _ROWS, re.I)


def newest_rows(question: str) -> tuple[int, str] | None:
    """(N, "desc") for "the 5 latest …" (最新的5笔), (N, "asc") for "the 3 earliest …"; None otherwise."""
    for pattern, order in ((LATEST_N, "desc"), (EARLIEST_N, "asc")):
        if (m := pattern.search(question)) and (n := _number(next(g for g in m.groups() if g))):
            return n, order
    return None


def in_time_order(question: str) -> str | None:
    """"desc" for "most recent first" (最新的在前), "asc" for "oldest first" (按时间顺序), else None."""
    return "desc" if NEWEST_FIRST.search(question) else "asc" if OLDEST_FIRST.search(question) else None


# the doer of a verb that says what the rows record ("the reason customers gave"): no dimension named
_DOER = re.compile(r"\b[a-z]+(?=\s+(?:gave|give|cited|chose|picked|selected|stated|reported|wrote)\b)", re.I)
# a length of time ("24小时", "两个小时", "48 hours"): no hour of the day named
_DURATION = re.compile(r"(?:\d+|[一二两三四五六七八九十半几]+)\s*个?\s*(?:小时|钟头)|\b\d+\s*hours?\b", re.I)


def spans(question: str) -> list[tuple[int, int]]:
    """Where the question says a time order, a length of time or a verb's doer (no other entry is read there)."""
    return [m.span() for pat in (NEWEST_FIRST, OLDEST_FIRST, LATEST_N, EARLIEST_N, _DURATION, _DOER)
            for m in pat.finditer(question)]


def split_inside(question: str, model: SemanticModel, measure_spans: list[tuple[int, int]],
                 split_before: re.Pattern | None = None) -> list[str]:
    """The dimensions whose name begins a measure's name said after a split word ("各品牌销售额": brand);
    with no split word pattern, wherever the name is said."""
    out = []
    for s, e in measure_spans:
        said = question[s:e].casefold()
        if split_before is not None and not split_before.search(question[:s]):
            continue
        for d in model.dimensions:
            if d.kind != "time" and any(w and len(w) < len(said) and said.startswith(w.casefold())
                                        and (not w.isascii() or said[len(w):len(w) + 1] == " ")
                                        for w in d.words()):
                out.append(d.id)
                break
    return list(dict.fromkeys(out))


def said_outside_fields(model: SemanticModel, question: str, word: str) -> bool:
    """Whether the question says `word` other than inside a longer word a record gives a column that is no
    dimension: 商品 is not said in 商品总额 (the order's total amount), 手机数码 is said though 手机 is a field's."""
    dims = {d.id for d in model.dimensions}
    words = {f"{r.id}.{c}": ws for r in model.records for c, ws in r.fields.items() if c not in dims}
    fields = Spans.find(question, words).spans() if words else []
    w, q = word.casefold(), question.casefold()
    edge = r"(?<![a-z0-9])" if w[:1].isascii() and w[:1].isalnum() else ""  # "M" is not said in "many"
    tail = r"(?![a-z0-9])" if w[-1:].isascii() and w[-1:].isalnum() else ""
    return bool(w) and any(not any(s <= i and i + len(w) <= e and e - s > len(w) for s, e in fields)
                           for i in [x.start() for x in re.finditer(edge + re.escape(w) + tail, q)])


_CJK = re.compile(r"[\u3400-\u9fff]+")
_FILLER = {"the", "a", "an", "of", "who", "that", "which", "with", "at", "least", "one", "per", "in", "on", "and"}


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.casefold())
    return {re.sub(r"(ies|es|s|ed|ing)$", "", w) or w for w in words if w not in _FILLER}


_FUNCTION_CJK = re.compile(r"多少|[了的是有几个吗呢]")


def backs(word: str, question: str) -> bool:
    """A Chinese name: three or more of its characters appear in the question in a row, covering most of
    it, or its words do, each in any order ("下单客户" in 多少个客户下过单). An English name of two or more
    words: each of its words appears in the question, in any order or form ("customers who ordered" in "how
    many customers placed an order"). A one-word English verb: its doer said ("spend" in "our biggest spenders")."""
    if word.isascii():
        stems = _stems(word)
        if re.fullmatch(r"[a-z]{3,}", word, re.I) and re.search(rf"\b{word}e?rs?\b", question, re.I):
            return True
        return len(stems) >= 2 and stems <= _stems(question)
    if not _CJK.fullmatch(word) or len(word) < 4:
        return False
    run = max((n for n in range(3, len(word) + 1) for i in range(len(word) - n + 1) if word[i:i + n] in question
               and len(_FUNCTION_CJK.sub("", word[i:i + n])) >= 2), default=0)  # 了多少 backs no 卖了多少钱
    return run >= 3 and run >= len(word) * 0.6 or _words_said(word, question)


# an aspect particle inside a two-character verb: 下过单, 付了款 say 下单, 付款 (separable verbs)
_ASPECT = "[了过]"
_COUNTED = "数量"


def _words_said(word: str, question: str) -> bool:
    """Whether each of a Chinese name's words (jieba's, two characters or more, not 多少) is said in the
    question, a two-character verb also with an aspect particle inside it, and they are all of the name
    but a count's 数 or 量."""
    parts = _parts(word)
    left = word
    for w in parts:
        left = left.replace(w, "", 1)
    if len(parts) < 2 or not set(left) <= set(_COUNTED):
        return False  # 订单取消率 is not said by 取消的订单: only a count's 数 or 量 may go unsaid
    return all(w in question or len(w) == 2 and re.search(re.escape(w[0]) + _ASPECT + re.escape(w[1]), question)
               for w in parts)


@lru_cache(maxsize=4096)
def _parts(word: str) -> tuple[str, ...]:
    """A name's jieba words of two characters or more (not 多少), segmented once per name: every question reads them."""
    from wenshu.knowledge.tokenize import _jieba

    return tuple(w for w in _jieba().lcut(word) if len(_FUNCTION_CJK.sub("", w)) >= 2)


def backed(model: SemanticModel, question: str) -> list[str]:
    """The measures and ratios whose words the question backs (`backs`), in the model's order."""
    return [e.id for e in [*model.measures, *model.ratios] if any(backs(w, question) for w in entry_words(model, e))]


_DAY_NAMES = "|".join(en for _, en in PARTS["day_of_week"].values())
_DAY_DIGITS = "".join(zh for zh, _ in PARTS["day_of_week"].values()) + "天"
# one day named as a date: "last Monday", "since this Friday", 上周一, 这个星期五 (not every Monday); a week's
# first day ("Monday-start weeks", "weeks starting on Sunday")
_DATED_DAY = re.compile(rf"\b(?:last|this|next|previous|coming|since)\s+(?:{_DAY_NAMES})\b"
                        rf"|\b(?:{_DAY_NAMES})[\s-](?:start(?:ing)?|to[\s-]\w+|based|first)\b"  # "Monday-start weeks"
                        rf"|\bweeks?\s+(?:starting|beginning)\s+(?:on\s+)?(?:{_DAY_NAMES})\b"
                        rf"|[上本这下]个?(?:周|星期|礼拜)[{_DAY_DIGITS}]"
                        r"|\b(?:the\s+)?same\s+(?:weekday|day\s+of\s+(?:the\s+)?week)\b|同一个?(?:星期几|工作日)", re.I)


def dated(question: str) -> list[tuple[int, int]]:
    """Where the question says a time: its time phrases ("the previous eight complete Monday-to-Sunday weeks")
    and a single day named as a date ("last Monday"); no member of a day-of-week dimension is read there."""
    out = [m.span() for m in _DATED_DAY.finditer(question)]
    for w in find_windows(question):
        if (i := question.find(w.phrase)) >= 0:
            out.append((i, i + len(w.phrase)))
    return out


_AFTER_SUBJECT = re.compile(r"\b(?:we|you|they|i)\s+(?:(?:did|do|does|have|had|will|would|can|could|just)\s+)?([a-z]+)\b",
                            re.I)


_PHRASAL = re.compile(r"\b([a-z]+)\s+(?:out|back|off)\b", re.I)


def after_subject(question: str) -> list[tuple[int, int]]:
    """The English word right after a subject ("how much GMV did we book", "what we sold") and a verb with its
    particle ("refunds paid out"): a verb, never a member's name (books, paid orders)."""
    return [m.span(1) for m in _AFTER_SUBJECT.finditer(question)] + [m.span(1) for m in _PHRASAL.finditer(question)]


def listed_records(model: SemanticModel, question: str, rows_noun: str,
                   labels: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where a record's own word comes right before a word for its rows (`rows_noun`: "上周退款的记录", "退货的明细"):
    the record's rows are asked for, so no value that shares the word is read there (退款的 also names refunded
    orders); `labels`: where values are named (a record's word inside a longer one, 已退款的明细, is the value's)."""
    found = Spans.find(question, {r.id: r.words() for r in model.records}).spans()
    return [(s, e) for s, e in found if re.match(rows_noun, question[e:])
            and not any(a <= s and e <= b and (a, b) != (s, e) and question[a:b] != question[s:e] + "的"
                        for a, b in labels)]



def averaged_over(words: list[str], question: str) -> bool:
    """Whether every place a dimension is named is right before 平均 / 人均 ("上个月顾客平均每笔…"): whom an average is
    of, not a split into each of them."""
    said = [m.end() for w in words for m in re.finditer(re.escape(w), question)]
    return bool(said) and all(re.match(r"\s*的?(?:平均|人均|均)", question[e:]) for e in said)
