"""The semantic model of a datasource: relationships, measures, ratios and dimensions, in YAML.

A measure owns its computation once: the table it lives on (its grain), the expression and the
aggregation, a default filter (only paid orders) and the time column its windows use. A ratio divides
two measures (客单价 = GMV / 订单量), each computed at its own grain, so nothing is summed after a
fan-out join. Relationships name both keys and the cardinality from the first table's side
(`many_to_one`: many orders per customer), which is what tells fan-out apart from a safe lookup.
Dimensions are columns a question groups or filters by, with labels for stored codes; time
dimensions name their grains; a dimension may be a part of a date (`part: day_type`, weekend or weekday). Records are rows a question lists one by one (orders, refunds). Every entry has a Chinese and an English name and synonyms: the words a
question uses, which the glossary keeps too — the glossary keeps the words, this model owns the math.

    datasource: demo
    relationships:
      - {from: orders.customer_id, to: customers.customer_id, cardinality: many_to_one}
    measures:
      - {id: gmv, zh: 销售额, en: GMV, synonyms: [成交额, sales], table: orders, agg: sum,
         expr: pay_amount, filter: status = 1, time: order_date, unit: 元}
    ratios:
      - {id: aov, zh: 客单价, en: average order value, numerator: gmv, denominator: paid_orders}
    dimensions:
      - {id: order_status, zh: 订单状态, en: order status, table: orders, column: status,
         labels: {"0": 待支付, "1": 已支付}, labels_en: {"0": pending, "1": paid}}
      - {id: region, zh: 大区, en: region, table: regions, column: region_name,
         aliases: {华东: [East China], 华北: [North China]}}
      - {id: order_date, zh: 下单日期, en: order date, table: orders, column: order_date, kind: time,
         grains: [day, week, month, quarter, year]}

Checks against the catalog live in `semantic.validate`; the pydantic types only check shape.
"""

from __future__ import annotations

import re

from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from wenshu.errors import InputError

FORMAT_VERSION = 1
AGGREGATIONS = ("sum", "count", "count_distinct", "avg", "min", "max")
GRAINS = ("day", "week", "month", "quarter", "year")
# parts of a date a dimension may be (its `column` the date): the ISO day of the week ("1" Monday .. "7" Sunday),
# and the kind of day ("1" a weekend day, "0" a weekday); the codes every engine's adapter computes alike
PARTS = {"day_of_week": {str(i): (zh, en) for i, zh, en in zip(range(1, 8), "一二三四五六日", (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"))},
         "day_type": {"1": ("周末", "weekend"), "0": ("工作日", "weekday")},
         # whether the date falls in the question's window ("1") or before it ("0"): a customer registered in the
         # window is a new one (新客), before it an existing one (老客); computed against the plan's window
         "new_in_window": {"1": ("新", "new"), "0": ("老", "existing")},
         # the hour of the day of a time ("00" .. "23"), shown as it is: no label to read in a question ("2000元")
         "hour_of_day": {f"{h:02d}": ("", "") for h in range(24)}}


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    zh: str
    en: str
    synonyms: list[str] = Field(default_factory=list)
    description: str | None = None

    def words(self) -> list[str]:
        return [self.zh, self.en, *self.synonyms]


class Measure(Entry):
    table: str
    agg: Literal["sum", "count", "count_distinct", "avg", "min", "max"]
    expr: str | None = None  # a column or expression of `table`; None with count: rows
    filter: str | None = None  # a condition on `table` always applied (e.g. status = 1)
    time: str | None = None  # the column of `table` its time windows use
    unit: str | None = None
    finer: str | None = None  # a measure at a finer grain used when a split cannot reach this one's table
    better: Literal["higher", "lower"] | None = None  # "lower" for a refund rate: its worst is its highest
    at_least: int | None = Field(None, ge=2)  # count_distinct: only keys with this many rows (复购客户: 2 paid orders)


class Ratio(Entry):
    numerator: str  # a measure id
    denominator: str  # a measure id
    scale: float = 1.0  # 100 for a percentage
    unit: str | None = None
    better: Literal["higher", "lower"] | None = None


class Dimension(Entry):
    table: str
    column: str
    kind: Literal["category", "time"] = "category"
    labels: dict[str, str] = Field(default_factory=dict)  # stored code -> label (Chinese, or the only one)
    labels_en: dict[str, str] = Field(default_factory=dict)  # stored code -> English label
    # stored value -> other names people use for it (another language, a short form): 华东 -> East China
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    # a column of `table` that tells members apart when `column` does not (customer_id: two customers may
    # share a name): splits group by it and show `column`
    key: str | None = None
    # its codes rank its members (member levels 0-3): "金卡及以上" / "gold or higher" names the code and those above
    ordered: bool = False

    def label(self, code: str, lang: str) -> str | None:
        return (self.labels_en.get(code) if lang == "en" else None) or self.labels.get(code)
    grains: list[Literal["day", "week", "month", "quarter", "year"]] = Field(default_factory=list)
    # dimensions of other tables with the same members (the orders' channel and the traffic's channel):
    # a measure that cannot reach this one splits and filters by the one of them it reaches
    conforms: list[str] = Field(default_factory=list)
    # a part of the date `column` holds ("周末和工作日", "by day of the week"), computed by each engine's
    # adapter; its codes are PARTS' and labelled by default
    part: Literal["day_of_week", "day_type", "new_in_window", "hour_of_day"] | None = None

    @model_validator(mode="after")
    def _part_labels(self) -> "Dimension":
        if self.part:
            for code, (zh, en) in PARTS[self.part].items():
                if zh:  # the hours are shown as they are: no labels
                    self.labels.setdefault(code, ("星期" + zh) if self.part == "day_of_week" else zh)
                    self.labels_en.setdefault(code, en)
        return self


class Record(Entry):
    """Rows people ask to see one by one ("昨天有哪些订单被取消了", "the 10 largest refunds"): a table, the
    columns a list shows (dimension ids, or columns of the table), its time column and default order."""

    table: str
    columns: list[str] = Field(min_length=1)
    time: str | None = None  # the column of `table` its time windows use
    order: str | None = None  # a column of `table` a list is sorted by (ascending) when nothing ranks it
    # a measure of `table` whose row value "the largest N" ranks by (or a column of it), unless another is named
    rank_by: str | None = None
    # a column of `table`: the row's own amount, which ranks and bounds the rows rank_by's measure leaves out by
    # its filter (unpaid and cancelled orders have no amount paid)
    value: str | None = None
    # column of `table` or dimension id -> more words people use for it in a list ("订单号" for order_id);
    # a column's own name, its measures' and its dimensions' words count without being listed here
    fields: dict[str, list[str]] = Field(default_factory=dict)

    def words(self) -> list[str]:
        """Its names, and each two-character Chinese name split by 的 or 了, as a verb and its object are said
        apart ("上周因为商品破损退的款有哪些": 退款)."""
        names = super().words()
        return names + [f"{w[0]}{x}{w[1]}" for w in names if re.fullmatch(r"[\u4e00-\u9fff]{2}", w) for x in "的了"]


class Relationship(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str = Field(alias="from", pattern=r"^\w+\.\w+$")  # table.column
    to: str = Field(pattern=r"^\w+\.\w+$")
    cardinality: Literal["many_to_one", "one_to_one"] = "many_to_one"
    # what says a dimension is reached through this lookup where another leads into the same table ("live in",
    # 家住: the customer's own city, not the order's delivery city; `semantic.routes`)
    words: list[str] = Field(default_factory=list)

    def ends(self) -> tuple[tuple[str, str], tuple[str, str]]:
        a, b = self.from_.split("."), self.to.split(".")
        return (a[0], a[1]), (b[0], b[1])


class SemanticModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    datasource: str
    format: int = FORMAT_VERSION
    description: str | None = None
    relationships: list[Relationship] = Field(default_factory=list)
    measures: list[Measure] = Field(default_factory=list)
    ratios: list[Ratio] = Field(default_factory=list)
    dimensions: list[Dimension] = Field(default_factory=list)
    records: list[Record] = Field(default_factory=list)
    # the measure a ranking that names none is judged by ("哪个渠道卖得最好", "which region is doing worst")
    headline: str | None = None

    def entries(self) -> list[Entry]:
        return [*self.measures, *self.ratios, *self.dimensions, *self.records]

    def conformed(self, did: str) -> list[Dimension]:
        """`did` and the dimensions that conform to it, declared on either side."""
        dims = {d.id: d for d in self.dimensions}
        ids = [did, *(dims[did].conforms if did in dims else []),
               *(d.id for d in self.dimensions if did in d.conforms)]
        return [dims[i] for i in dict.fromkeys(ids) if i in dims]

    def to_yaml(self) -> str:
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=False)
        for section in ("measures", "ratios", "dimensions", "records"):
            for item in data.get(section, []):
                for key in ("synonyms", "labels", "labels_en", "aliases", "grains", "conforms"):
                    if key in item and not item[key]:
                        del item[key]
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120)


class InvalidSemanticModel(InputError):
    """A semantic model that does not parse or does not fit its datasource; names every bad entry."""

    code = "semantic_model_invalid"

    def __init__(self, problems: list[str], problems_zh: list[str] | None = None):
        self.problems = problems
        en = "The semantic model is not valid: " + "; ".join(problems)
        zh = "语义模型无效：" + "；".join(problems_zh or problems)
        super().__init__(en, zh)


def _where(loc: tuple, data: dict) -> str:
    """`measures[3] (gmv).agg` from a pydantic error location."""
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            try:
                item = data[loc[i - 1]][part]
                out += f" ({item.get('id') or item.get('from')})" if isinstance(item, dict) else ""
            except (KeyError, IndexError, TypeError):
                pass
        else:
            out += ("." if out else "") + str(part)
    return out


def parse_model(text: str) -> SemanticModel:
    """Parse YAML into a model; raises InvalidSemanticModel naming each entry that does not fit the format."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidSemanticModel([f"not YAML: {exc}"], [f"不是合法的 YAML：{exc}"]) from exc
    if not isinstance(data, dict):
        raise InvalidSemanticModel(["the top level must be a mapping with datasource, measures, dimensions"],
                                   ["顶层必须是包含 datasource、measures、dimensions 的映射"])
    try:
        return SemanticModel.model_validate(data)
    except ValidationError as exc:
        problems = [f"{_where(e['loc'], data)}: {e['msg']}" for e in exc.errors()]
        raise InvalidSemanticModel(problems) from exc
