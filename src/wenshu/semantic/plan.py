"""A query plan: the small typed request a business question becomes, compiled to SQL by code.

It names only ids of the datasource's semantic model (measures or ratios, dimensions, or the records a
detail list shows), filter values,
a resolved time window (dates, half-open: start inclusive, end exclusive), a grain for trends, a
comparison with an earlier period, share of total, order and top N. The model picks these from short
lists; `semantic.compile` writes the SQL.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

EARLIEST = date(1900, 1, 1)  # where a window said as "before" a period starts ("signed up before this year")
Grain = Literal["day", "week", "month", "quarter", "year"]
Op = Literal["in", "not_in", "eq", "ne", "gt", "gte", "lt", "lte"]


class Filter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dimension: str  # a dimension id; in a detail list also a column or measure of the record's table (a bound)
    op: Op = "in"
    values: list[str | int | float] = Field(min_length=1)


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: date
    end: date  # exclusive

    def shifted(self, compare: str) -> Window:
        """The earlier period a comparison reads: a year before (yoy; Monday-to-Sunday weeks, and a week so far, the
        same weekdays 52 weeks before), or the period just before. A period
        to date compares with the same days of the one before: this month so far with the same days of
        last month, this week so far with the same weekdays of last week."""
        if compare == "yoy" and self.start.weekday() == 0 and ((self.end - self.start).days % 7 == 0
                                                              or 1 < (self.end - self.start).days < 7):
            # weeks (and a week so far past its Monday): 52 back; one day, a Monday too, is the same date a year before
            return Window(start=self.start - timedelta(days=364), end=self.end - timedelta(days=364))
        if compare == "yoy":
            return Window(start=add_months(self.start, -12), end=add_months(self.end, -12))
        if compare == "week":  # the same days a week before ("yesterday vs the same day last week")
            return Window(start=self.start - timedelta(days=7), end=self.end - timedelta(days=7))
        months = (self.end.year - self.start.year) * 12 + self.end.month - self.start.month
        if self.start.day == 1 and self.end.day != 1:
            months += 1  # to date: a whole number of months back
        if self.start.day == 1 and months:
            return Window(start=add_months(self.start, -months), end=add_months(self.end, -months))
        days = (self.end - self.start).days
        if self.start.weekday() == 0 and days < 7:
            days = 7  # this week so far
        return Window(start=self.start - timedelta(days=days), end=self.end - timedelta(days=days))


class Presence(BaseModel):
    """Members kept by whether they have rows of a count measure ("这个季度还一单没下的客户": none this quarter to
    date; "how many have already placed a paid order": some, ever; 首次下单: none before the plan's window): the rows
    of `measure`'s table, under its own filter, in `window` (None: ever), that point at the member the plan counts."""
    model_config = ConfigDict(extra="forbid")
    measure: str
    has: bool = False
    window: Window | None = None
    # the window is everything before the plan's own ("first-ever purchase last month": none before last month)
    before: bool = False
    # what scopes the rows that the members cannot take (西北 for categories with nothing sold there: `rows_scope`)
    filters: list[Filter] = Field(default_factory=list)

    def period(self, plan_window: Window | None) -> Window | None:
        if self.before and plan_window is not None:
            return Window(start=EARLIEST, end=plan_window.start)
        return self.window


class QueryPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    measures: list[str] = Field(default_factory=list)  # measure or ratio ids (a list: those that filter or rank it)
    records: str | None = None  # a record id: list its rows instead of aggregating (明细)
    columns: list[str] = Field(default_factory=list)  # a list's fields as the question names them (else the record's)
    dimensions: list[str] = Field(default_factory=list)
    filters: list[Filter] = Field(default_factory=list)
    # bounds on a measure's total per member ("哪些城市成交额超过250万"): `dimension` is a measure id of the plan
    having: list[Filter] = Field(default_factory=list)
    # "有多少个城市成交额超过100万": the answer is the number of members of the split (or periods of the trend)
    count_members: bool = False
    window: Window | None = None
    grain: Grain | None = None  # a trend: one row per period of each measure's own time column
    per: Grain | None = None  # 日均: each measure per period of its time column, averaged over the periods
    compare: Literal["none", "yoy", "previous", "week"] = "none"  # 同比 / 环比 (the period just before) / a week before
    # the earlier window when the question names one the comparison's shift would not give ("quarter to date versus
    # all of last quarter": the whole quarter, not its same days); None: `window.shifted(compare)`
    against: Window | None = None
    share: bool = False  # 占比: the first measure as a percentage of its total
    value_too: bool = False  # a share of a filtered part that states the part too ("how many …, and what percentage")
    # the dimensions whose filters the share's whole keeps ("what % of all 华北 orders": of 华北's, not of all)
    share_within: list[str] = Field(default_factory=list)
    order: Literal["desc", "asc"] | None = None
    order_by: str | None = None  # a measure id of the plan; default the first
    by_change: bool = False  # with a comparison, ranked by the measure's change (growth), not by its value
    # with a comparison, the change as an amount too ("比前一周变化了多少"); with none, two members of the split side
    # by side in one row and the gap between them ("华东和华南各卖了多少，差了多少": `pair`)
    difference: bool = False
    # with a comparison, the growth % beside the values; off where the change is asked in the measure's own unit
    # ("差了多少钱", "差几单": the amount alone)
    growth: bool = True
    limit: int | None = Field(None, ge=1, le=10_000)
    # the limit is the top N of the second dimension within each member of the first ("每个大区最畅销的商品")
    limit_per: bool = False
    # the rank of the one member its filter names among all members of its dimension ("成都排第几"; `semantic.rank_of`);
    # read from the question's words, never the model's
    rank_of: bool = False
    # the lookups its dimensions are reached through where the question says which ("live in": the customers'
    # city, not the orders' delivery city): relationships' `from` columns (`semantic.routes`); never the model's
    via: list[str] = Field(default_factory=list)
    # members kept by whether they have rows of a measure (`semantic.presence`); read from the question, never the model's
    presence: list[Presence] = Field(default_factory=list)

    def earlier(self) -> Window | None:
        """The window the comparison reads: the one the question named, else the window shifted. A named one is
        kept only while it starts where the shift does (a follow-up or a chip that moves the window or changes the
        comparison leaves it behind)."""
        if self.compare == "none" or self.window is None:
            return None
        shifted = self.window.shifted(self.compare)
        return self.against if self.against is not None and self.against.start == shifted.start else shifted

    def ranked_by_change(self) -> bool:
        """Ranked by each member's change against the earlier period (a chip may drop the comparison)."""
        return self.by_change and self.compare != "none"

    def ranked_by_amount(self) -> bool:
        """Ranked by each member's change as an amount ("流水增加最多的三个城市", "掉得最多？掉了多少"): the amount is
        the change shown (a percentage's change is in points either way); falling first, it is the decrease."""
        return self.ranked_by_change() and self.difference

    def change_columns(self, points: bool) -> tuple[bool, bool]:
        """With a comparison, whether the growth and the amount of the change are shown. A percentage (`points`)
        changes by points: its change is the one column; ranked by the amount, the amount alone."""
        if points:
            return True, False
        return self.growth and not self.ranked_by_amount(), self.difference or not self.growth

    def pair(self) -> tuple[str, list] | None:
        """(dimension, its two members) when the answer is the two side by side with the gap between them."""
        if not self.difference or self.compare != "none" or self.grain or self.share or self.count_members \
                or self.records or len(self.dimensions) != 1:
            return None
        two = [f for f in self.filters if f.dimension == self.dimensions[0] and f.op == "in" and len(f.values) == 2]
        return (self.dimensions[0], list(two[0].values)) if two else None

    def share_only(self) -> bool:
        """A share of a filtered part with nothing to split by answers with the share alone."""
        return self.share and bool(self.filters) and not self.dimensions and not self.grain \
            and self.compare == "none" and len(self.measures) == 1 and not self.value_too

    @model_validator(mode="after")
    def _asks_for_something(self):
        if not self.measures and not self.records:
            raise ValueError("a plan needs measures, or records to list")
        return self

    @field_validator("limit", mode="before")
    @classmethod
    def _no_limit(cls, value):
        """A limit of 0 or less is no limit (constrained decoding cannot hold a model to a minimum)."""
        return None if isinstance(value, int | float) and not isinstance(value, bool) and value < 1 else value


def add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    last = (date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(d.day, last))
