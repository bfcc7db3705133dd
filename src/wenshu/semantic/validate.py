"""Check a semantic model against its datasource's catalog; every problem names its entry and why.

- every table and column a relationship, measure or dimension names exists (expressions and filters
  are parsed with sqlglot and their columns looked up on the entry's table, or on a table it reaches
  by many-to-one relationships: a lookup, which never multiplies the measure's rows);
- a measure's expression is a row-level expression: its aggregation belongs in `agg`;
- a ratio divides two measures that exist;
- ids are unique across measures, ratios and dimensions;
- no two tables are joined by two lookup paths of the same, shortest length (a join would be ambiguous;
  a longer second path is fine: joins follow the shortest);
- a time dimension names at least one grain; a measure's time column exists on its table.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from wenshu.semantic.model import PARTS, InvalidSemanticModel, SemanticModel
from wenshu.semantic.paths import reachable, tied_paths


@dataclass(frozen=True)
class Problem:
    entry: str
    en: str
    zh: str

    def __str__(self) -> str:
        return f"{self.entry}: {self.en}"


class _Checker:
    def __init__(self, model: SemanticModel, catalog, dialect: str):
        self.model, self.dialect = model, dialect
        self.columns = {t.name.lower(): {c.name.lower() for c in t.columns} for t in catalog.tables}
        self.problems: list[Problem] = []
        self.lookups = reachable(model)

    def add(self, entry: str, en: str, zh: str) -> None:
        self.problems.append(Problem(entry, en, zh))

    def column(self, entry: str, table: str, column: str) -> bool:
        if table.lower() not in self.columns:
            self.add(entry, f"table '{table}' does not exist", f"表「{table}」不存在")
            return False
        if column.lower() not in self.columns[table.lower()]:
            self.add(entry, f"column '{table}.{column}' does not exist", f"列「{table}.{column}」不存在")
            return False
        return True

    def expression(self, entry: str, table: str, sql: str, what: str, *, row_level: bool = False) -> None:
        try:
            tree = sqlglot.parse_one(sql, read=self.dialect)
        except sqlglot.errors.ParseError:
            self.add(entry, f"the {what} '{sql}' does not parse", f"{what}「{sql}」无法解析")
            return
        if row_level and tree.find(exp.AggFunc):
            self.add(entry, f"the expression '{sql}' aggregates; put the aggregation in agg and a row-level "
                     "expression in expr", f"表达式「{sql}」含聚合；聚合应写在 agg，expr 只写行级表达式")
        if table.lower() not in self.columns:
            self.add(entry, f"table '{table}' does not exist", f"表「{table}」不存在")
            return
        for col in tree.find_all(exp.Column):
            self.reference(entry, table, col.table or table, col.name, what)

    def reference(self, entry: str, table: str, other: str, column: str, what: str) -> None:
        """A column of `table`, or of a table `table` looks up (many-to-one): never one that fans out."""
        if other.lower() != table.lower() and other.lower() not in self.lookups.get(table.lower(), set()):
            self.add(entry, f"the {what} uses '{other}.{column}', which {table} does not reach by many-to-one "
                     "relationships (joining it would repeat the measure's rows)",
                     f"{what}引用了「{other}.{column}」，{table} 无法经多对一关系到达（连接会重复度量的行）")
        else:
            self.column(entry, other, column)

    def run(self) -> list[Problem]:
        m = self.model
        seen: dict[str, str] = {}
        for kind, entries in (("measure", m.measures), ("ratio", m.ratios), ("dimension", m.dimensions),
                              ("record", m.records)):
            for e in entries:
                if e.id in seen:
                    self.add(f"{kind} {e.id}", f"the id is also used by a {seen[e.id]}",
                             f"该 id 已被另一个{seen[e.id]}使用")
                seen[e.id] = kind
        for r in m.relationships:
            (ta, ca), (tb, cb) = r.ends()
            self.column(f"relationship {r.from_} -> {r.to}", ta, ca)
            self.column(f"relationship {r.from_} -> {r.to}", tb, cb)
        self.ambiguous_joins()
        for me in m.measures:
            entry = f"measure {me.id}"
            if me.expr:
                self.expression(entry, me.table, me.expr, "expression", row_level=True)
            elif me.agg not in ("count",):
                self.add(entry, f"agg '{me.agg}' needs an expr", f"聚合「{me.agg}」需要 expr")
            if me.at_least and me.agg != "count_distinct":
                self.add(entry, "at_least counts keys with that many rows: it needs agg count_distinct",
                         "at_least 统计行数达到该值的键，需要 agg 为 count_distinct")
            if me.filter:
                self.expression(entry, me.table, me.filter, "filter")
            if me.time:
                other, _, column = me.time.rpartition(".")
                self.reference(entry, me.table, other or me.table, column, "time column")
        measures = {me.id for me in m.measures}
        for me in m.measures:
            if me.finer and (me.finer not in measures or me.finer == me.id):
                self.add(f"measure {me.id}", f"finer '{me.finer}' is not another measure",
                         f"finer「{me.finer}」不是另一个已定义的度量")
        for ra in m.ratios:
            for part in (ra.numerator, ra.denominator):
                if part not in measures:
                    self.add(f"ratio {ra.id}", f"'{part}' is not a measure", f"「{part}」不是已定义的度量")
        for d in m.dimensions:
            self.column(f"dimension {d.id}", d.table, d.column)
            if d.key:
                self.column(f"dimension {d.id}", d.table, d.key)
            for other in d.conforms:
                if other == d.id or other not in {x.id for x in m.dimensions}:
                    self.add(f"dimension {d.id}", f"conforms to '{other}', which is not another dimension",
                             f"conforms 中的「{other}」不是另一个已定义的维度")
            for code in set(d.aliases) - set(d.labels) if d.labels else ():
                self.add(f"dimension {d.id}", f"aliases has code '{code}' that labels does not",
                         f"aliases 中的代码「{code}」不在 labels 中")
            for code in set(d.labels_en) - set(d.labels):
                self.add(f"dimension {d.id}", f"labels_en has code '{code}' that labels does not",
                         f"labels_en 中的代码「{code}」不在 labels 中")
            if d.part and (d.kind == "time" or set(d.labels) - set(PARTS[d.part])):
                self.add(f"dimension {d.id}", f"a {d.part} part is a category whose codes are "
                         f"{', '.join(PARTS[d.part])}", f"{d.part} 维度是分类维度，代码只能是 {'、'.join(PARTS[d.part])}")
            if d.kind == "time" and not d.grains:
                self.add(f"dimension {d.id}", "a time dimension needs grains (day, week, month, quarter, year)",
                         "时间维度需要 grains（day、week、month、quarter、year）")
        if m.headline and m.headline not in measures | {ra.id for ra in m.ratios}:
            self.add("headline", f"'{m.headline}' is not a measure or ratio", f"「{m.headline}」不是已定义的度量或比率")
        self.records()
        return self.problems

    def records(self) -> None:
        """A record's columns are dimensions or columns its table reaches without repeating its rows."""
        dims = {d.id: d for d in self.model.dimensions}
        for r in self.model.records:
            entry = f"record {r.id}"
            for name in [*r.columns, *(x for x in (r.time, r.order, r.value) if x), *r.fields]:
                d = dims.get(name) if name in r.columns or name in r.fields else None
                other, _, column = (f"{d.table}.{d.column}" if d else name).rpartition(".")
                self.reference(entry, r.table, other or r.table, column, "column")
            ranked = next((me for me in self.model.measures if me.id == r.rank_by), None)
            if r.rank_by and ranked is None:  # a column of the record's own (a product's list price)
                self.reference(entry, r.table, r.table, r.rank_by, "column")
            elif r.rank_by and (ranked.table.lower() != r.table.lower() or not ranked.expr):
                self.add(entry, f"rank_by '{r.rank_by}' is not a measure of {r.table} with an expression",
                         f"rank_by「{r.rank_by}」不是 {r.table} 表上带表达式的度量")

    def ambiguous_joins(self) -> None:
        def route(hops) -> str:
            return " -> ".join([hops[0].on[0], *(h.table for h in hops)])

        for start, target, one, other in tied_paths(self.model):
            last = other[-1].on
            r = next(r for r in self.model.relationships if {r.ends()[0], r.ends()[1]} == {last[:2], last[2:]})
            self.add(f"relationship {r.from_} -> {r.to}",
                     f"{start} reaches {target} by two join paths of the same length ({route(one)}; {route(other)}),"
                     " so a split by it is ambiguous",
                     f"{start} 到 {target} 有两条同样长的连接路径（{route(one)}；{route(other)}），按它拆分有歧义")


def check(model: SemanticModel, catalog, dialect: str = "sqlite") -> list[Problem]:
    """Every problem of `model` on `catalog` (empty when it fits)."""
    return _Checker(model, catalog, dialect).run()


def ensure_valid(model: SemanticModel, catalog, dialect: str = "sqlite") -> SemanticModel:
    problems = check(model, catalog, dialect)
    if problems:
        raise InvalidSemanticModel([str(p) for p in problems], [f"{p.entry}：{p.zh}" for p in problems])
    return model
