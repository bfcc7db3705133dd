"""A measure's names said with a dimension's other words: the semantic model already says that a shopper
is a customer, so "customers who bought" is also "shoppers who bought" and 下单客户数 is also 下单用户数.

Only a dimension's own word found whole inside a longer measure name is swapped (an English word on
word boundaries, singular or plural, its plural kept, in a name of two words or more; a Chinese word of
two characters or more, in a name at least two characters longer), and only for the dimension's other
words, so no name is invented that the model does not imply, and a name that is no more than the
dimension ("buyers", 买家数) does not turn into the dimension's other words.
"""

from __future__ import annotations

import re

from wenshu.semantic.model import Entry, SemanticModel
from wenshu.knowledge.compiled import rx

_CJK = re.compile(r"[\u3400-\u9fff]")
_SHORT = {"average": "avg", "quantity": "qty", "amount": "amt", "number": "no.", "percentage": "pct",
          "revenue": "rev", "customers": "custs", "customer": "cust"}


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _swaps(name: str, word: str, others: list[str]) -> list[str]:
    if _CJK.search(word):  # 下单客户数 -> 下单用户数; 买家数 is no more than the dimension counted: kept as it is
        ok = len(word) >= 2 and word in name and len(name) - len(word) >= 2
        return [name.replace(word, o) for o in others if _CJK.search(o)] if ok else []
    if not word.isascii() or " " in word or " " not in name.strip():  # "buyers" alone is kept as it is
        return []
    out = []
    for m in rx(rf"(?<![a-z]){re.escape(word.casefold())}(s|es)?(?![a-z])").finditer(name.casefold()):
        for o in (o for o in others if o.isascii() and not _CJK.search(o)):
            said = _plural(o) if m.group(1) else o
            out.append(name[:m.start()] + said + name[m.end():])
    return out


def _abbreviated(name: str) -> list[str]:
    """"average order value" -> "avg order value" (one word shortened at a time, then all of them)."""
    if not name.isascii() or " " not in name.strip():
        return []
    found = [(m, _SHORT[m.group(0).casefold()]) for m in rx(r"[A-Za-z]+").finditer(name) if m.group(0).casefold() in _SHORT]
    out = [name[:m.start()] + short + name[m.end():] for m, short in found]
    if len(found) > 1:
        whole = name
        for m, short in reversed(found):
            whole = whole[:m.start()] + short + whole[m.end():]
        out.append(whole)
    return out


def _asked_count(name: str, rows: set[str]) -> list[str]:
    """新客数 -> 多少新客, 多少个新客, 几个新客, 新客有多少 (not for a record's own word: 订单数 stays as it is)."""
    stem = name[:-1] if name.endswith("数") else ""
    if len(stem) < 2 or not all(_CJK.match(c) for c in stem) or stem in rows:
        return []
    asked = [f"多少{stem}", f"多少个{stem}", f"多少位{stem}", f"几个{stem}", f"几位{stem}", f"{stem}有多少"]
    # 取消订单的占比, 退款订单的数量: the count's rows named with what is asked of them (no two-character stem:
    # 新客的销售额 is the new customers' sales)
    return asked + ([f"{stem}的{w}" for w in ("占比", "比例", "比重", "数量")] + [f"{stem}占比"] if len(stem) >= 4 else [])


def _totalled(name: str) -> list[str]:
    """退款金额 -> 退款总金额, 销售额 -> 销售总额 and 销售金额, 订单数 -> 订单总数: 总 (total) said before the head of an
    amount or count, and an amount's 额 said in full (金额)."""
    for head in ("金额", "数量", "额", "数", "量"):
        stem = name[:-len(head)]
        if name.endswith(head) and len(stem) >= 2 and all(_CJK.match(c) for c in stem) and "总" not in name:
            return [f"{stem}总{head}"] + ([f"{stem}金额"] if head == "额" else [])
    return []


_COMPLEMENTS = ("掉", "了", "出去", "出", "回", "回去", "走")  # a verb's result or direction: 退掉的钱, 退出去的钱


def _aspected(name: str) -> list[str]:
    """下单客户 -> 下过单客户, 下了单客户: an aspect particle after a name's first character, as a verb takes it (the
    variants that are no Chinese never occur in a question)."""
    return [name[0] + a + name[1:] for a in "过了"] if len(name) >= 3 and all(_CJK.match(c) for c in name) else []


def _complemented(name: str) -> list[str]:
    """退的钱 -> 退掉的钱, 退出去的钱, 退回的钱: a one-character verb before 的钱 / 的金额 said with a complement of its
    result or direction, as people say it."""
    said = rx(r"([\u3400-\u9fff])(的(?:钱|金额))").fullmatch(name)
    return [f"{said.group(1)}{c}{said.group(2)}" for c in _COMPLEMENTS] if said else []


def _field_totals(model: SemanticModel, entry: Entry) -> list[str]:
    """A sum of one column said as the total of the field a record calls it: gmv sums pay_amount, which the
    order record calls "amount paid", so "total amount paid" and 实付总金额 name it; and asked as how much of
    the field's act ("how much … paid": backed by the question's words, `phrasing.backs`; the Chinese
    form, 支付了多少, lost a validation question and is not read)."""
    if getattr(entry, "agg", None) != "sum" or not rx(r"\w+").fullmatch(getattr(entry, "expr", "") or ""):
        return []
    out = []
    for w in (w for r in model.records if r.table.lower() == entry.table.lower() for w in r.fields.get(entry.expr, [])):
        out += [f"total {w}"] if w.isascii() else _totalled(w)
        act = rx(r"(?:amount|sum) (\w+)|(\w+) (?:amount|sum)").fullmatch(w) if w.isascii() else None
        out += [f"how much {act.group(1) or act.group(2)}"] if act else []
    return out


def _expanded(model: SemanticModel, entry: Entry) -> list[str]:
    words = [w for w in entry.words() if w]
    rows = {w for e in [*model.records, *model.dimensions] for w in e.words() if w}
    words += [a for w in words for a in _abbreviated(w) + _complemented(w) + _aspected(w)]
    words += [a for w in words if getattr(entry, "agg", None) in ("count", "count_distinct") for a in _asked_count(w, rows)]
    words += [a for w in words if not w.startswith(("多少", "几")) for a in _totalled(w)] + _field_totals(model, entry)
    if getattr(entry, "agg", None) == "sum":  # "the refund total": the refund amount
        words += [f"{h.group(1)} {t}" for w in words if (h := rx(r"(\w+) (?:amount|value)").fullmatch(w)) for t in ("total", "totals")]
    extra = []
    for d in model.dimensions:
        names = [w for w in d.words() if w]
        for name in words:
            for word in names:
                extra += _swaps(name, word, [o for o in names if o != word])
    return list(dict.fromkeys(words + extra))


_SEEN: dict[int, tuple[SemanticModel, dict]] = {}  # id -> (the model, what was worked out from it once)


def _of(model: SemanticModel) -> dict:
    """What was worked out from this model object (a question reads it several times; models are not edited)."""
    seen = _SEEN.get(id(model))
    if seen is None or seen[0] is not model:
        if len(_SEEN) >= 16:
            _SEEN.clear()
        seen = _SEEN[id(model)] = (model, {})
    return seen[1]


def entry_words(model: SemanticModel, entry: Entry) -> list[str]:
    """`entry`'s words, and each with a dimension's word inside it said in that dimension's other words."""
    known = _of(model)
    found = known.get(entry.id)
    if found is None:
        found = known[entry.id] = _expanded(model, entry)
    return found


# a count asked after the noun, or the noun as the whole a share is of ("下过单的客户中，复购客户占几成")
_ASKED_AFTER = r"(?:数|的?数量|(?:一共|总共|共)?有(?:多少|几)(?:个|位|名)?|是?多少|当中|之中|中|里)"


_NEGATED = re.compile(r"(?:没有?|未|不|从不|从未|从没)$")


def _acts(model: SemanticModel) -> list[tuple[Entry, str, str]]:
    """(count measure, act pattern, noun) for each count named as an act before a dimension's word (下单客户数)."""
    known = _of(model)
    if "#acts" not in known:
        known["#acts"] = _found_acts(model)
    return known["#acts"]


def _found_acts(model: SemanticModel) -> list[tuple[Entry, str, str]]:
    nouns = {w for d in model.dimensions for w in d.words() if _CJK.search(w) and len(w) >= 2}
    out = []
    for x in (x for x in model.measures if x.agg in ("count", "count_distinct") and not x.at_least):
        acts = {(w[:i], w[i:i + len(n)]) for w in entry_words(model, x) for n in nouns
                for i in [w.find(n)] if i >= 2 and w[i + len(n):] in ("", "数") and rx(r"[\u4e00-\u9fff]+").fullmatch(w[:i])
                and not rx("多少|几|总").search(w[:i])}
        for act, noun in sorted(acts):  # a two-character act said with 了 / 过 inside: 下过单, 下了单
            a = re.escape(act[0]) + "(?:了|过)?" + re.escape(act[1]) if len(act) == 2 else re.escape(act)
            out.append((x, a, noun))
    return out


def negated_act(model: SemanticModel, question: str) -> str | None:
    """The act of a count said as not done ("上个月没下单的客户", "从未购买过"): those rows are not the count's."""
    neg = r"(?:没有?|未|从不|从未|从没)(?:再|有)?"
    for _x, a, noun in _acts(model):
        n = re.escape(noun)  # the noun counted in the same clause: 未付款的订单 is a status, not this
        if m := (rx(rf"{neg}({a})[^，。？！,.?!\s]{{0,12}}?的{n}").search(question)
                 or rx(rf"{n}[^，。？！,.?!\s]{{0,8}}?{neg}({a})").search(question)):
            return m.group(1)
    return None


def apart(model: SemanticModel, question: str, taken: list[tuple[int, int]],
          asked: bool = True) -> dict[str, list[tuple[int, int]]]:
    """Counts named with their act and their noun apart: a count whose Chinese name is an act before a
    dimension's word (下单客户数, 购买客户数) is also named by the act, what it was done to, 的 and the noun
    counted ("购买了手机数码的客户数", "上个月下单的客户有多少"), or by the noun counted and then the act
    ("多少客户购买了"). measure id -> the act's and the noun's spans, none inside `taken` (`asked`: only where
    a count is asked after the noun; else also "上个月下单的客户有哪些", the rows the act picks)."""
    out: dict[str, list[tuple[int, int]]] = {}
    used = list(taken)
    tail = _ASKED_AFTER if asked else ""
    for x, a, noun in _acts(model):
        n = re.escape(noun)
        # or asked later in the count's own unit ("新注册的会员，按城市等级分，每档有多少人")
        later = rf"(?=.*?(?:多少|几)\s*(?:个|位|名)?\s*{re.escape(x.unit)}(?![\u4e00-\u9fff]))" if asked and x.unit else None
        for m in [*rx(rf"({a})(?:了|过)?[^，。？！,.?!\s]{{0,12}}?的({n}{tail})").finditer(question),
                  *rx(rf"((?:多少|几)(?:个|位|名)?{n})[^，。？！,.?!\s没未不]{{0,6}}?({a})").finditer(question),
                  *(rx(rf"({a})(?:了|过)?[^，。？！,.?!\s]{{0,12}}?的({n}){later}").finditer(question) if later else [])]:
            spans = [m.span(1), m.span(2)]
            if _NEGATED.search(question[:m.start()]):  # 没有下单的客户: the act not done, not this count
                continue
            if not any(s < e2 and s2 < e for s, e in spans for s2, e2 in used):
                used += spans
                out.setdefault(x.id, []).extend(spans)
    return out


def possessive(model: SemanticModel, words: list[str]) -> list[str]:
    """城市等级 -> 城市的等级, 商品品类 -> 商品的品类: a Chinese name that begins with another entry's name of two
    characters or more, said with 的 between that name and the rest."""
    heads = {w for e in [*model.records, *model.dimensions] for w in e.words() if w and len(w) >= 2 and _CJK.match(w)}
    return [f"{w[:n]}的{w[n:]}" for w in words if all(_CJK.match(c) for c in w)
            for n in range(2, len(w) - 1) if w[:n] in heads and w[n] != "的"]

