"""The part each dimension named in a question plays: a split (one row per member), a name the answer keeps
without splitting by it, what is counted, or only the kind of a value named just before it.

- A split word just before the name (各, 按, 每个, by, per) or "each" just after it (城市各自, 城市分别), a "which" before it or after it (哪个城市, 城市有哪些),
  a superlative right before it (销售额最高的城市: one member) or a bound right before it (超过500的城市) split.
- A name right after one of its own values ("华南大区", "tier 1 cities") is that value's kind, not a split,
  unless asked; "across all channels" is their total.
- A name after a count word ("新注册了多少用户") is what is counted.
- A keyed name right before another name of its own table ("customer gender", "客户的会员等级") says whose
  attribute that is: the split is the attribute's.
- "The top 5 tier-1 cities" ranks the cities of the value named before them (`many`: a top N above one),
  unless another dimension is ranked ("the top 3 categories … for women shoppers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wenshu.semantic.cues import CUES, SPLIT_BEFORE, SUPERLATIVE_BEFORE, WHICH_AFTER, WHICH_BEFORE, cue
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.paths import reachable
from wenshu.semantic.routes import owner_route
from wenshu.semantic.spans import Spans
from wenshu.semantic.thresholds import thresholds

_WHOLE = re.compile(r"\bacross\s+all\s+(the\s+)?$", re.I)
_EACH_BEFORE = re.compile(r"(?:各个?|每一?个|每一?种|各种|\b(?:each|every|for each))\s*$", re.I)  # ("placed by
# diamond members": by whom, no split)
_BY_BEFORE = re.compile(r"按照?[^，。？！,.?!；;按]{1,8}$")
_BY_AFTER = re.compile(r"\s*(?:来|去)?(?:分|划分|拆|区分|分组|归类)")
_ALL_BEFORE = re.compile(r"(所有|全部|全体|整个|全国|全)\s*$")  # "所有城市的销售额": their total, no split
# an English superlative right before a value that stands before a kind ("the best-selling Apple product")
_TOP = re.compile(r"\b(best|worst|top|most|least|highest|lowest|biggest|largest|smallest|cheapest|priciest)"
                  r"(?:[- ](?:selling|grossing|performing|rated|popular|expensive))?\s*$", re.I)
_EACH_AFTER = re.compile(r"\s*(各自|分别|\s+each\b)")  # "西南那几个城市各自卖了多少", "the cities each": each member
_EACH_VERB = re.compile(r"\s*各(?![个种类位])")  # 新老客各下了多少单 (渠道各品类: the next split's word)
_COUNTED_AFTER = re.compile(r"\s*(一共|总共|共)?\s*(有|是)?\s*(多少|几)|\s*的?\s*总?(数量|个数|人数|数)(?!据|字|值)")


@dataclass
class Roles:
    named: list[str] = field(default_factory=list)  # dimensions the question names (split or not)
    split: list[str] = field(default_factory=list)  # one row per member
    counted: list[str] = field(default_factory=list)  # the members counted ("多少个买家")
    picked_one: bool = False  # a superlative right before a name: its top member
    via: list[str] = field(default_factory=list)  # "customer city": the lookup the owner's table reaches it by


def dimension_roles(model: SemanticModel, question: str, dims: Spans, values: dict[str, list[str]],
                    value_spans: list[tuple[int, int]], value_at: dict[str, list[tuple[int, int]]],
                    many: bool, together: tuple[str, ...] = ()) -> Roles:
    """Each named dimension's part (`dims`: where each is named; `values`, `value_spans`, `value_at`: the values
    named and where; `many`: a top N above one is asked; `together`: dimensions whose values are one range said,
    "金卡及以上", "晚上8点以后", split only when each is asked for)."""
    out = Roles()
    if any(cue(c, question) for c in ("each", "versus", "share", "delta", "apart", "these")):  # "北京上海的GMV分别是多少", "app vs web",
        # "男女的退款率差几个百分点": each member named, on its own row
        each = cue("each", question) or cue("apart", question)
        out.split += [d for d, codes in values.items() if len(codes) > 1 and (each or d not in together)]
    by_rank: list[str] = []
    passed = thresholds(question)
    rows = {(r.table.lower(), r.columns[0]) for r in model.records if r.columns}  # dimensions that name records
    own = {d.id for d in model.dimensions if d.kind != "time" and (d.table.lower(), d.column) not in rows}
    for did in dims.ids():
        at = dims.hits[did]
        after_value = all(any(e <= s and not question[e:s].strip() for _, e in value_spans) for s, _ in at)
        kinds = {c.id for c in model.conformed(did)}
        before = [(vs, s, e) for s, e in at for vd, spans in value_at.items() for vs, ve in spans
                  if ve <= s and not question[ve:s].strip() and vd not in kinds]  # another dimension's value, then it
        top = bool(before) and all(_TOP.search(question[:vs]) or SUPERLATIVE_BEFORE.search(question[:vs]) for vs, _, _ in before)
        ranked = (many or top) and after_value and len({s for _, s, _ in before}) == len(at)  # "the best-selling Apple
        out.picked_one = out.picked_one or top and not many and all(  # product": one product of Apple's, the top one
            not question[s:e].isascii() or not question[s:e].endswith("s") for _, s, e in before)
        after_value = after_value and not ranked  # another dimension's value before its name ("Gold members"): by member
        split_word = any(SPLIT_BEFORE.search(question[:s]) or _BY_BEFORE.search(question[:s]) and _BY_AFTER.match(question[e:])
                         for s, e in at)  # 按他们自己所在城市的等级分: 按 … 分 around the name
        each = any(_EACH_AFTER.match(question[e:]) for _, e in at)  # 华东城市分别: the cities of 华东 (华东大区分别: no)
        asked = any(WHICH_BEFORE.search(question[:s]) or WHICH_AFTER.match(question[e:]) for s, e in at) \
            or each and (bool(before) or not after_value) or not after_value and any(_each_verb(question, e, dims) for _, e in at)
        best = any(SUPERLATIVE_BEFORE.search(question[:s]) for s, _ in at)
        asked = asked or any(re.fullmatch(r"\s*[%％]?\s*的\s*", question[t.end:s]) and not _COUNTED_AFTER.match(question[e:])
                             for t in passed for s, e in at)  # 超过500的城市 (…的客户有多少位: counted)
        out.picked_one, asked = out.picked_one or best, asked or best
        whole = all(_WHOLE.search(question[:s]) for s, _ in at)  # "across all channels": their total
        led = bool(before) and all(_EACH_BEFORE.search(question[:vs]) for vs, _, _ in before)  # "each 手机数码 brand"
        split_word, asked = split_word or led, asked or led
        if (after_value or whole) and not asked:
            continue  # "华南大区", "tier 1 cities": the name of the value's own kind, not a split ("which Apple product" is)
        if all(re.search(CUES["counted"], question[:s], re.I) for s, _ in at):
            out.counted.append(did)
            continue  # "新注册了多少用户": what is counted, not a split
        out.named.append(did)
        owned = did in own and any(_owns_measure(model, question, e) and not _ALL_BEFORE.search(question[:s])
                                   for s, e in at)  # 大区的销售额 (客户的销售额, 所有城市的销售额合计: all)
        if split_word or asked or ranked or owned:
            out.split.append(did)
            by_rank += [did] * (ranked and not (split_word or asked))
    tables = {d.id: d.table for d in model.dimensions}
    for owner, follower in owners(model, question, dims, out.named):  # "by customer gender": the gender's split
        out.via += [r for r in [owner_route(model, tables[owner], tables[follower])] if r]  # "customer city": theirs
        out.named.remove(owner)
        if owner in out.split:
            out.split = [follower if d == owner else d for d in out.split if d != follower]
    if len(out.split) > len(by_rank) or len(by_rank) > 1:  # the first ranked one: "best-selling 运动户外 items among male
        by_rank = by_rank if len(out.split) > len(by_rank) else by_rank[1:]  # shoppers" ranks the items
        out.named = [d for d in out.named if d not in by_rank]
        out.split = [d for d in out.split if d not in by_rank]
    said_at = {d: min([s for s, _ in [*dims.hits.get(d, []), *value_at.get(d, [])]], default=len(question)) for d in out.split}
    out.split = sorted(dict.fromkeys(out.split), key=said_at.get)  # "每个渠道里，男的和女的各花了多少": by channel, then gender
    return out


def _each_verb(question: str, end: int, dims: Spans) -> bool:
    """各 right after a name and before a verb, not before another name ("新老客各下了多少单", not "渠道各品类")."""
    said = _EACH_VERB.match(question[end:])
    return bool(said) and not any(s == end + said.end() for s, _ in dims.spans())


def _owns_measure(model: SemanticModel, question: str, end: int) -> bool:
    """Whether a measure's name follows a dimension's name and 的 ("大区的销售额", "渠道的订单量": each member's), or an
    English name right before it ("channel conversion rates", "category revenue")."""
    said = re.match(r"\s*的\s*" if not question[end - 1:end].isascii() else r" +(?=[a-z])", question[end:], re.I)
    rest = question[end + said.end():].casefold() if said else ""
    return bool(rest) and any(rest.startswith(w.casefold()) for x in [*model.measures, *model.ratios] for w in x.words())


def owners(model: SemanticModel, question: str, dims: Spans, named: list[str]) -> list[tuple[str, str]]:
    """(owner, follower): a keyed dimension named right before another dimension of its own table ("customer
    gender", "客户的会员等级") or of one it looks up ("product category": the products' category) names whose attribute
    that is, not a split by each customer."""
    by_id, out, reach = {d.id: d for d in model.dimensions}, [], reachable(model)
    for did in named:  # an unkeyed one only as the first word of an English compound ("product category"; not
        if not by_id[did].key and not all(question[s:e].isascii() for s, e in dims.hits[did]):  # 商品的品类, and
            continue  # 各品牌商品: Chinese compounds of two kinds are names of their own, 商品品类)
        after = [e + re.match(r"\s*(的|'s|’s)?\s*" if by_id[did].key else r"\s*", question[e:]).end()
                 for _, e in dims.hits[did]]
        follower = next((o for o in dims.ids() if o != did and (by_id[o].table == by_id[did].table or by_id[o].table.lower()
                                                                 in reach.get(by_id[did].table.lower(), ()))
                         and any(s == at for s, _ in dims.hits[o] for at in after)), None)
        if follower is not None:
            out.append((did, follower))
    return out

