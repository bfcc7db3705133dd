"""Compile a detail-list plan: the rows of one record ("昨天有哪些订单被取消了", "the 10 largest refunds").

The record's entry in the semantic model says which columns a list shows (its own columns, and
dimensions its table looks up, such as the order's city), the time column windows use and the
default order. The plan's measures on the record's table add their default filter (cancelled orders
are `status = 2`) and one of them may rank the rows by its row-level expression (a refund's amount).
Filters on a table the record's rows do not look up become EXISTS, as for measures, so nothing
repeats a row. The SQL then goes through the guard like any other.
"""

from __future__ import annotations

from wenshu.semantic.compile import Compiler
from wenshu.semantic.compiled import Compiled, literal
from wenshu.semantic.has_rows import presence_condition, record_member
from wenshu.semantic.model import Record
from wenshu.semantic.paths import Unreachable, joins


class DetailCompiler(Compiler):
    def record(self) -> Record:
        found = next((r for r in self.model.records if r.id == self.plan.records), None)
        if found is None:
            raise self.fail(f"'{self.plan.records}' is not a record of the semantic model",
                            f"「{self.plan.records}」不是语义模型中的明细对象")
        return found

    def listed(self, rec: Record, used: set[str]) -> tuple[list[str], list[str]]:
        """SELECT items and column names: the fields the question named, else the record's own but a dimension
        filtered to one value ("发往深圳的订单": every row's city is 深圳); a dimension by its name (codes as labels),
        a column as it is."""
        select, columns = [], []
        pinned = {f.dimension for f in self.plan.filters if f.op == "in" and len(f.values) == 1}
        for name in self.plan.columns or [c for c in rec.columns if c not in pinned]:
            d = self.dims.get(name)
            if d is not None:
                ref, header = self.shown(d, self.ref(d)), self.name(d)
                used.add(d.table)
            else:
                ref, header = self.qualify(name, rec.table, used), self.header(rec, name)
            select.append(f"{ref} AS {self.q(header)}")
            columns.append(header)
        return select, columns

    def amount_shown(self, rec: Record) -> str | None:
        """A column of the record the list is sorted or bounded by that some measure sums (pay_amount), when the
        list does not already show it."""
        plan = self.plan
        said = [plan.order_by] if plan.order_by and plan.order_by.isidentifier() else []
        said += [f.dimension.rpartition(".")[2] for f in plan.filters if f.dimension not in self.dims
                 and f.dimension.rpartition(".")[0].lower() in ("", rec.table.lower())]
        amounts = {x.expr for x in self.model.measures if x.agg != "count" and x.table.lower() == rec.table.lower()}
        return next((c for c in said if c in amounts and c not in (plan.columns or rec.columns)), None)

    def in_place_of_value(self, rec: Record, plan, select: list[str], columns: list[str], item: str, name: str) -> None:
        """The amount a list is ranked or bounded by, shown in place of the record's own amount when the list shows
        the record's default columns ("the 10 largest paid orders", "实付超过1000的订单": the amount paid; also with
        fields added to them, "with city and channel"), else added after them."""
        at, own = len(select), self.header(rec, rec.value) if rec.value else None
        if plan.columns[:len(rec.columns)] in ([], rec.columns) and own in columns:
            at = columns.index(own)
            del select[at], columns[at]
        select.insert(at, item)
        columns.insert(at, name)

    def header(self, rec: Record, column: str) -> str:
        """A column's name in the answer: its measure's name (退款金额), else the first of the record's words
        for it in the answer's language (订单号, order number), else the column itself."""
        me = next((x for x in self.model.measures if x.expr == column and x.table.lower() == rec.table.lower()
                   and x.agg != "count"), None)
        if me is not None:
            return me.zh if self.lang == "zh" else me.en
        owner, _, name = column.rpartition(".")
        fields = next((r.fields for r in self.model.records if r.table == owner), rec.fields) if owner else rec.fields
        words = [w for w in fields.get(name, []) if w.isascii() == (self.lang == "en")]
        return words[0] if words else name

    def run(self) -> Compiled:
        plan, rec = self.plan, self.record()
        if plan.dimensions or plan.grain or plan.per or plan.share or plan.compare != "none" or plan.having:
            raise self.fail(f"a list of {rec.id} rows cannot be split, averaged, compared or shared",
                            f"{rec.zh}明细不能拆分、平均、对比或计算占比")
        used: set[str] = {rec.table}
        select, columns = self.listed(rec, used)
        measures = [self.metric(x) for x in plan.measures]
        near = self.lookups.get(rec.table.lower(), set()) | {rec.table.lower()}
        where = []
        for me in measures:
            if getattr(me, "table", "").lower() != rec.table.lower():
                raise self.fail(f"measure {me.id} is not on {rec.table}, so it cannot filter or rank its rows",
                                f"度量 {me.id} 不在 {rec.table} 表上，不能筛选或排序其明细")
            if default := self.default_filter(me, plan.filters):  # "cancelled orders": not the paid ones
                where.append(f"({self.qualify(default, me.table, used)})")
        if plan.window is not None:
            if not rec.time:
                raise self.fail(f"record {rec.id} has no time column, so it cannot take a time window",
                                f"明细 {rec.id} 没有时间列，无法按时间范围筛选")
            t = self.qualify(rec.time, rec.table, used)
            where.append(f"{t} >= {literal(plan.window.start.isoformat())} AND {t} < {literal(plan.window.end.isoformat())}")
        where += [presence_condition(self, record_member(self.model, rec.table), p, rec.id)  # "这个月还没下过单的金卡会员"
                  for p in plan.presence]
        for f in plan.filters:
            if f.dimension not in self.dims:  # a bound on the row's own value: 退款金额超过1000元
                where.append(self.bound(f, rec.table, used))
                summed = next((x for x in self.model.measures if x.agg == "sum" and x.filter and not measures
                               and x.expr == f.dimension.rpartition(".")[2] and x.table.lower() == rec.table.lower()), None)
                if summed is not None and (default := self.default_filter(summed, plan.filters)):
                    where.append(f"({self.qualify(default, rec.table, used)})")  # "实付超过1000的订单": the paid ones
                continue
            d = self.reaching(self.dim(f.dimension), rec.table)  # the traffic's channel for traffic rows
            f = f.model_copy(update={"dimension": d.id})
            where.append(self.condition(f, used, d) if d.table.lower() in near else self.exists(rec.table, f))
        order = ""
        if plan.order_by and plan.order_by.isidentifier() and not {plan.order_by} & {*self.measures, *self.ratios}:
            # a column of the record's own (a list bounded on its list price is sorted by it)
            way = (plan.order or 'desc').upper()
            order = f" ORDER BY {self.qualify(plan.order_by, rec.table, used)} {way}"
            if plan.order_by == rec.time and rec.order and rec.order != rec.time:  # the same day: by the finer order
                order += f", {self.qualify(rec.order, rec.table, used)} {way}"
        elif plan.order_by:
            ranked = self.metric(plan.order_by)
            value = self.qualify(ranked.expr, rec.table, used)
            if ranked.expr not in (plan.columns or rec.columns):
                self.in_place_of_value(rec, plan, select, columns, f"{value} AS {self.q(self.name(ranked))}",
                                       self.name(ranked))
            order = f" ORDER BY {value} {(plan.order or 'desc').upper()}"
        elif rec.order:
            order = f" ORDER BY {self.qualify(rec.order, rec.table, used)}"
        if (shown := self.amount_shown(rec)) and not (plan.order_by and {plan.order_by} & {*self.measures, *self.ratios}):
            item = f"{self.qualify(shown, rec.table, used)} AS {self.q(self.header(rec, shown))}"  # "实付超过1000的订单"
            self.in_place_of_value(rec, plan, select, columns, item, self.header(rec, shown))
        try:
            hops = joins(self.model, rec.table, used - {rec.table})
        except Unreachable as exc:
            raise self.fail(f"the rows of {rec.table} cannot show {exc.target}: joining it would repeat them",
                            f"{rec.table} 的明细不能显示 {exc.target}：连接会重复明细行") from exc
        sql = self.select_from(select, rec.table, hops, where) + order + (f" LIMIT {plan.limit}" if plan.limit else "")
        return Compiled(self.pretty(sql), columns, self.dialect)
