"""What every compiler of a query plan writes SQL with: quoted names, the model's entries looked up (or a
plain error), a column qualified by its table, a measure's time column, a dimension's shown value (labels for
codes, a name for a key), a filter's condition, a semi-join for a filter on a finer table, and one SELECT along
lookup joins. `semantic.compile.Compiler` (totals) and `semantic.detail.DetailCompiler` (rows) build on it."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from wenshu.engines.registry import adapter_for
from wenshu.semantic.compiled import OPS, PlanNotCompilable, literal
from wenshu.semantic.counting import own_filter
from wenshu.semantic.labels import PER, coded
from wenshu.semantic.model import Dimension, Measure, Ratio, SemanticModel
from wenshu.semantic.paths import Unreachable, reachable, semi_join
from wenshu.semantic.plan import Filter, QueryPlan


class SqlWriter:
    def __init__(self, model: SemanticModel, plan: QueryPlan, dialect: str, lang: str):
        self.model, self.plan, self.lang, self.engine = model, plan, lang, adapter_for(dialect)  # the engine's SQL
        self.dialect = self.engine.dialect if self.engine is not None else dialect
        self.measures = {m.id: m for m in model.measures}
        self.ratios = {r.id: r for r in model.ratios}
        self.dims = {d.id: d for d in model.dimensions}
        self.lookups = reachable(model)

    # -- names -------------------------------------------------------------------------------
    def q(self, name: str) -> str:
        return exp.to_identifier(name, quoted=True).sql(dialect=self.dialect)

    def col(self, table: str, column: str) -> str:
        return f"{self.q(table)}.{self.q(column)}"

    def ref(self, d: Dimension, column: str | None = None) -> str:
        """A dimension's stored value: its column, or the part of the date it is (周末 / 工作日)."""
        ref = self.col(d.table, column or d.column)
        if not d.part or column:
            return ref
        if d.part == "new_in_window":
            return self.new_in_window(d, ref)
        try:
            return self.engine.date_part(d.part, ref)
        except KeyError as exc:
            raise self.fail(f"the semantic layer cannot compute {d.part} in {self.dialect} SQL yet",
                            f"语义层暂不支持在 {self.dialect} 方言中计算 {d.part}") from exc

    def new_in_window(self, d: Dimension, ref: str) -> str:
        """"1" when the date is on or after the window's start (a customer registered in it: new), else "0". A
        trend or a comparison would need it per period: those plans are not compiled."""
        if self.plan.window is None or self.plan.grain or self.plan.compare != "none":
            raise self.fail(f"'{d.en}' is only defined over one time window",
                            f"「{d.zh}」只能在一个时间范围内计算")
        return f"CASE WHEN {ref} >= {self.engine.date_literal(self.plan.window.start)} THEN '1' ELSE '0' END"

    def name(self, entry) -> str:
        entry = self.named_as(entry) if isinstance(entry, Measure) else entry
        name = entry.zh if self.lang == "zh" else entry.en
        if self.plan.per and isinstance(entry, Measure):
            return PER[self.lang][self.plan.per].format(name)
        return name

    def fail(self, en: str, zh: str) -> PlanNotCompilable:
        return PlanNotCompilable(en, zh)

    def metric(self, mid: str) -> Measure | Ratio:
        found = self.measures.get(mid) or self.ratios.get(mid)
        if found is None:
            raise self.fail(f"'{mid}' is not a measure of the semantic model", f"「{mid}」不是语义模型中的度量")
        return found

    def dim(self, did: str) -> Dimension:
        if did not in self.dims:
            raise self.fail(f"'{did}' is not a dimension of the semantic model", f"「{did}」不是语义模型中的维度")
        return self.dims[did]

    # -- columns and conditions -----------------------------------------------------------------
    def qualify(self, sql: str, table: str, used: set[str]) -> str:
        def qualified(node):
            if not isinstance(node, exp.Column):
                return node
            owner = node.table or table
            used.add(owner)
            return exp.Column(this=exp.to_identifier(node.name, quoted=True), table=exp.to_identifier(owner, quoted=True))

        return sqlglot.parse_one(sql, read=self.dialect).transform(qualified).sql(dialect=self.dialect)

    def default_filter(self, m: Measure, filters: list) -> str | None:
        """The measure's default filter without its conditions on a column the plan names values of ("已取消订单的
        商品总额": the cancelled orders, not the paid ones the measure keeps by default); kept whole when it is no
        plain AND of conditions."""
        if not m.filter:
            return None
        named = {(d.table.lower(), d.column.lower()) for f in filters if f.op == "in" and f.dimension in self.dims
                 for d in [self.dim(f.dimension)]}
        tree = sqlglot.parse_one(m.filter, read=self.dialect)
        conds = list(tree.flatten()) if isinstance(tree, exp.And) else [tree]
        cols = [c.unnest().find(exp.Column) for c in conds]
        if not named or any(c is None for c in cols):
            return m.filter
        kept = [c for c, col in zip(conds, cols) if ((col.table or m.table).lower(), col.name.lower()) not in named]
        return " AND ".join(c.sql(dialect=self.dialect) for c in kept) or None

    def named_as(self, m: Measure) -> Measure:
        """The measure whose name says what `m` counts once the plan's values replace a condition of its default
        filter ("退款订单有多少" then "那已取消的呢": 取消订单数, not 退款订单数): one of the same rows and expression
        whose filter keeps the plan's values on that column and the rest of `m`'s; else `m`."""
        kept = self.default_filter(m, self.plan.filters)
        if kept == m.filter:
            return m
        values = {d.column.lower(): {str(v) for v in f.values} for f in self.plan.filters
                  if f.op == "in" and f.dimension in self.dims for d in [self.dim(f.dimension)]
                  if d.table.lower() == m.table.lower()}
        for twin in self.model.measures:
            if twin is m or (twin.table, twin.agg, twin.expr, twin.time) != (m.table, m.agg, m.expr, m.time):
                continue
            own = own_filter(twin) or {}
            if values and self.default_filter(twin, self.plan.filters) == kept and \
                    all(own.get(c) == v for c, v in values.items()):
                return twin
        return m

    def time_column(self, m: Measure, used: set[str]) -> str:
        if not m.time:
            raise self.fail(f"measure {m.id} has no time column, so it cannot take a time window or a trend",
                            f"度量 {m.id} 没有时间列，无法按时间范围或趋势统计")
        return self.qualify(m.time, m.table, used)

    def reaching(self, d: Dimension, table: str) -> Dimension:
        """`d`, or the dimension conforming to it that `table`'s rows reach (the traffic's channel for visitors):
        one on `table` itself first (周末 of refunds: the refund's date, not its order's)."""
        near = self.lookups.get(table.lower(), set()) | {table.lower()}
        twins = sorted(self.model.conformed(d.id), key=lambda c: c.table.lower() != table.lower())
        return next((c for c in twins if c.table.lower() in near), d)

    def shown(self, d: Dimension, ref: str, keyed: bool = False) -> str:
        """A dimension's value as the answer shows it: codes as labels (1 = 一线), a key (`keyed`) as its name."""
        if keyed and d.key:  # MAX: Spark wants a correlated scalar subquery aggregated
            name, key = self.col(d.table, d.column), self.col(d.table, d.key)
            return f"(SELECT MAX({name}) FROM {self.q(d.table)} WHERE {key} = {ref})"
        if not coded(d):
            return ref
        cases = " ".join(f"WHEN {literal(c)} THEN {literal(d.label(c, self.lang))}" for c in d.labels)
        return f"CASE {self.engine.as_text(ref)} {cases} ELSE {self.engine.as_text(ref)} END"

    def condition(self, f: Filter, used: set[str], d: Dimension | None = None) -> str:
        d = d or self.dim(f.dimension)
        used.add(d.table)
        codes = {label: code for code, label in d.labels.items()}
        values = [literal(codes[v]) if isinstance(v, str) and v in codes else literal(v) for v in f.values]
        column = self.ref(d)
        if f.op in ("in", "not_in"):
            return f"{column} {'NOT IN' if f.op == 'not_in' else 'IN'} ({', '.join(values)})"
        return f"{column} {OPS[f.op]} {values[0]}"

    def bound(self, f: Filter, table: str, used: set[str]) -> str:
        """A bound on a row value of `table`'s rows ("实付金额超过5000元"): a measure's row expression (退款金额 is
        refund_amount's), a column of `table`, or a column of a table its rows look up (`orders.pay_amount`
        for order lines). The joins it needs are checked by the caller's `joins`, so it never repeats a row."""
        me = self.measures.get(f.dimension)
        if me is not None and me.expr and me.agg not in ("count", "count_distinct"):
            value = self.qualify(me.expr, me.table, used)
        elif re.fullmatch(r"\w+(\.\w+)?", f.dimension):
            value = self.qualify(f.dimension, table, used)
        else:
            raise self.fail(f"'{f.dimension}' is neither a dimension nor a value of {table} rows",
                            f"「{f.dimension}」既不是维度，也不是 {table} 表行上的取值")
        if f.op not in OPS or len(f.values) != 1 or not isinstance(f.values[0], int | float):
            raise self.fail(f"a bound on {f.dimension} needs one number and a comparison",
                            f"{f.dimension} 的范围条件需要一个数值和比较符")
        return f"{value} {OPS[f.op]} {literal(f.values[0])}"

    def exists(self, table: str, f: Filter) -> str:
        """`table`'s rows that have a row of the filter's table matching it (orders with such an item)."""
        target = self.dim(f.dimension).table
        try:
            sj = semi_join(self.model, table, target)
        except Unreachable as exc:
            raise self.fail(f"{table} cannot be filtered by {target}", f"{table} 表不能按 {target} 筛选") from exc
        cond = self.condition(f, set())
        sql = f"EXISTS (SELECT 1 FROM {self.q(sj.child)}"
        for h in sj.hops:
            lt, lc, rt, rc = h.on
            sql += f" JOIN {self.q(h.table)} ON {self.col(lt, lc)} = {self.col(rt, rc)}"
        ct, cc, st, sc = sj.on
        return sql + f" WHERE {self.col(ct, cc)} = {self.col(st, sc)} AND {cond})"

    def select_from(self, items: list[str], table: str, hops, where: list[str]) -> str:
        """SELECT items FROM table, joined along the lookup hops, with the conditions ANDed."""
        sql = f"SELECT {', '.join(items)} FROM {self.q(table)}"
        for h in hops:
            lt, lc, rt, rc = h.on
            sql += f" JOIN {self.q(h.table)} ON {self.col(lt, lc)} = {self.col(rt, rc)}"
        return sql + (" WHERE " + " AND ".join(where) if where else "")
