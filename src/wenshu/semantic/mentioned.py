"""What a question mentions, as `semantic.mentions.read` finds it in the semantic model's words: the
measures, dimensions, values, records and operators (comparison, share, rank, trend) it names."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Mentions:
    measures: list[str]
    alternatives: dict[str, list[str]]  # a measure chosen for a word -> the other measures that word names
    dimensions: list[str]  # named anywhere (not counting a name right after one of its values)
    split: list[str]  # named right after a split word: one row per member
    counted: list[str]  # named right after 多少 / how many: what the question counts
    dimension_words: dict[str, list[str]]  # dimension id -> the words of the question that named it
    measure_words: dict[str, list[str]]  # measure id -> the words of the question that named it
    values: dict[str, list[str]]  # dimension id -> stored values the question names
    records: list[str]  # record ids named outside a measure's words ("10笔退款", "订单有哪些")
    listing: bool  # asks to see rows (哪些, 明细, list) and not how many (多少, how many)
    grain: str | None
    per: str | None  # "日均": an average per day (week, month)
    compare: str  # "yoy" | "previous" | "none"
    share: bool
    trend: bool
    rank: bool
    limit: int | None
    order: str | None  # "desc" | "asc" when ranked
    judged: bool = False  # ranked by "best" / "worst", which follows the measure's `better`
    by_change: str | None = None  # "asc" (fell the most first) | "desc" (grew the most first): ranked by the change
    # id -> the phrase no entry lists that is close to the entry in meaning, closest first (`semantic.nearby`)
    near_measures: dict[str, str] = field(default_factory=dict)
    near_dimensions: dict[str, str] = field(default_factory=dict)
    counted_values: list[str] = field(default_factory=list)  # dimension ids whose value is counted ("多少钻石会员")
    share_within: list[str] = field(default_factory=list)  # dimension ids whose value is a share's whole (of all 华北 …)
    excluded: list[str] = field(default_factory=list)  # dimension ids whose named values are left out (除了华东)
    via: list[str] = field(default_factory=list)  # the lookups the question says its dimensions are reached by
    ranged: list[str] = field(default_factory=list)  # dimension ids named with "or higher / 及以上" (semantic.ordinal)
