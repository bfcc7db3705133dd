"""Compile a query plan to SQL over a semantic model, in the SQL of any engine with an adapter.

Each measure is aggregated at its own grain in its own CTE — its table, joined only to the tables it
looks up (many-to-one), filtered by its default filter, the plan's filters and the time window on its
own time column, grouped by the plan's dimensions (and period, for a trend). The CTEs then meet on
those keys. So an order-level amount is never summed once per order item, a ratio divides two
measures each computed at its own grain, and measures on different tables line up by dimension and period
(a member's key when its name is not unique). A bound on a row value (orders over 5,000 yuan) is one more
condition on the rows each measure aggregates; a bound on a measure's total (`having`) keeps the members
whose total passes it, and a count of members (`count_members`) counts them and adds up what else the plan
measures over them (`semantic.passing`). A comparison (同比 / 环比) adds
the earlier window's values and the growth (a rank may follow it); a share (占比) divides by the total.
Why not boring-semantic-layer: docs/semantic.md."""

from __future__ import annotations

import sqlglot

from wenshu.semantic.compiled import AGG, OPS, Compiled, PlanNotCompilable, key_column, literal
from wenshu.semantic.has_rows import member, presence_condition
from wenshu.semantic.labels import COMPARE, DECREASE, DIFFERENCE, PERIOD, SHARE, change_name, own_order
from wenshu.semantic.model import Measure, Ratio, SemanticModel
from wenshu.semantic.pair import paired
from wenshu.semantic.passing import counted
from wenshu.semantic.paths import Unreachable, joins, joins_through_children, own_key
from wenshu.semantic.routes import routed
from wenshu.semantic.plan import QueryPlan, Window
from wenshu.semantic.sql_writer import SqlWriter

__all__ = ["Compiler", "PlanNotCompilable", "compile_plan"]


class Compiler(SqlWriter):
    """A plan of totals: a CTE per measure at its own grain, met on the plan's keys."""

    # -- one measure at its grain ----------------------------------------------------------------
    def measure_cte(self, m: Measure, window: Window | None, whole_of: list[str] | None = None,
                    total: bool = False) -> str:
        """`m` per key of the split (and period), in `window`, under the plan's filters (with `whole_of`, only
        the filters on those dimensions: the whole a share divides by; `total`: one row, no split)."""
        used: set[str] = {m.table}
        split = [] if total else [self.reaching(d, m.table) for d in self.keys_dims]
        groups = [self.ref(d, d.key) for d in split]  # namesakes stay apart
        used.update(d.table for d in split)
        if self.plan.grain and not total:
            groups.append(self.engine.bucket(self.plan.grain, self.time_column(m, used)))
        keys = [f"{g} AS {'p' if self.plan.grain and i == len(groups) - 1 else f'd{i}'}" for i, g in enumerate(groups)]
        value = AGG[m.agg].format(e=self.qualify(m.expr, m.table, used) if m.expr else "*")
        filters = self.plan.filters if whole_of is None else [f for f in self.plan.filters if f.dimension in whole_of]
        default = self.default_filter(m, filters)
        where = [f"({self.qualify(default, m.table, used)})"] if default else []
        if window is not None:
            t = self.time_column(m, used)
            where.append(f"{t} >= {literal(window.start.isoformat())} AND {t} < {literal(window.end.isoformat())}")
        for f in filters:
            if f.dimension not in self.dims:  # a bound on a row value: orders over 5,000 yuan
                where.append(self.bound(f, m.table, used))
                continue
            d = self.reaching(self.dim(f.dimension), m.table)
            if d.table.lower() in self.lookups.get(m.table.lower(), set()) | {m.table.lower()}:
                where.append(self.condition(f, used, d))
            else:  # an item-level filter on an order-level measure: the orders that have such an item
                where.append(self.exists(m.table, f))
        where += [presence_condition(self, member(self.model, m), p, m.id) for p in self.plan.presence]  # 还一单没下的客户
        try:
            repeat_safe = m.agg in ("count_distinct", "min", "max") and not m.at_least  # buyers of each category
            hops = (joins_through_children if repeat_safe else joins)(self.model, m.table, used - {m.table})
        except Unreachable as exc:
            key = own_key(self.model, m.table) if m.agg == "count" and not m.expr and not m.at_least else None
            if key is None:
                raise self.unsplit(m, exc) from exc
            # orders counted per category: the orders that hold an item of it, each once (refund rate by category)
            if self.plan.share:  # an order with items of two categories is in both: shares would not add up to 100
                raise self.unsplit(m, exc) from exc
            hops = joins_through_children(self.model, m.table, used - {m.table})
            value = f"COUNT(DISTINCT {self.col(m.table, key)})"
        per = self.engine.bucket(self.plan.per, self.time_column(m, used)) if self.plan.per else None
        if m.at_least:  # 复购客户: the keys with at least N rows, counted per member
            names = ["p" if self.plan.grain and i == len(keys) - 1 else f"d{i}" for i in range(len(keys))]
            key = self.qualify(m.expr, m.table, set())
            sql = self.select_from(keys, m.table, hops, where) if keys else self.select_from(["1 AS one"], m.table, hops, where)
            sql += f" GROUP BY {', '.join([*groups, key])} HAVING COUNT(*) >= {m.at_least}"
            return f"SELECT {', '.join([*names, 'COUNT(*) AS v'])} FROM ({sql}) kept" + \
                (f" GROUP BY {', '.join(names)}" if names else "")
        inner = [*keys, f"{per} AS pp"] if per else keys
        sql = self.select_from([*inner, f"{value} AS v"], m.table, hops, where)
        if not per:
            return sql + (f" GROUP BY {', '.join(groups)}" if groups else "")
        # 日均: the measure per period, then its average over the periods (per member of the split)
        sql += f" GROUP BY {', '.join([*groups, per])}"
        outer = ["p" if self.plan.grain and i == len(keys) - 1 else f"d{i}" for i in range(len(keys))]
        return f"SELECT {', '.join([*outer, 'AVG(v) AS v'])} FROM ({sql}) per_period" + \
            (f" GROUP BY {', '.join(outer)}" if outer else "")

    def unsplit(self, m: Measure, exc: Unreachable):
        return self.fail(f"measure {m.id} (on {m.table}) cannot be split or filtered by {exc.target}: joining it would "
                         f"repeat the measure's rows", f"度量 {m.id}（{m.table} 表）不能按 {exc.target} 拆分或筛选：连接会重复度量的行")

    # -- the whole query ---------------------------------------------------------------------------
    def run(self) -> Compiled:
        plan = self.plan
        if self.engine is None or not self.engine.buckets:
            raise self.fail(f"the semantic layer does not write {self.dialect} SQL yet",
                            f"语义层暂不支持生成 {self.dialect} 方言的 SQL")
        self.keys_dims = [self.dim(d) for d in plan.dimensions]
        metrics = [self.metric(mid) for mid in plan.measures]
        bases = self.bases(metrics)
        if plan.compare != "none" and plan.window is None:
            raise self.fail("a comparison needs a time window", "同比/环比需要时间范围")
        if (plan.having or plan.count_members) and (not (plan.dimensions or plan.grain) or plan.share or plan.compare
                                                     != "none" and (plan.count_members or plan.grain)):
            raise self.fail("a bound on a measure's total needs members to keep (a split or a trend), and no "
                            "share or comparison", "度量合计的条件需要按维度或时间拆分，且不能与占比或对比同用")
        if plan.compare != "none" and plan.grain:  # each period against its own earlier one
            from wenshu.semantic.trend_compare import compile_trend_compare

            return compile_trend_compare(type(self), self.model, plan, self.dialect, self.lang)
        ctes = {f"m_{b}": self.measure_cte(self.measures[b], plan.window) for b in bases}
        if plan.compare != "none":
            earlier = plan.earlier()
            ctes |= {f"c_{b}": self.measure_cte(self.measures[b], earlier) for b in bases}
        keys = [f"d{i}" for i in range(len(self.keys_dims))] + (["p"] if plan.grain else [])
        names = list(ctes)
        if keys and len(names) > 1:
            ctes["k"] = f" {self.engine.union_distinct} ".join(f"SELECT {', '.join(keys)} FROM {n}" for n in names)
            source = "k" + "".join(
                f" LEFT JOIN {n} ON " + " AND ".join(f"k.{c} = {n}.{c}" for c in keys) for n in names)
            key_of = "k"
        else:
            source, key_of = " CROSS JOIN ".join(names), names[0]
        self.key_of = key_of
        select, columns = [], []
        for i, d in enumerate(self.keys_dims):
            if d.key:  # the key before the name: two customers of one name stay two rows a reader tells apart
                select.append(f"{key_of}.d{i} AS {self.q(key_column(self.name(d), self.lang))}")
                columns.append(key_column(self.name(d), self.lang))
            ref = self.shown(d, f"{key_of}.d{i}", keyed=True)
            select.append(f"{ref} AS {self.q(self.name(d))}")
            columns.append(self.name(d))
        if plan.grain:
            select.append(f"{key_of}.p AS {self.q(PERIOD[self.lang][plan.grain])}")
            columns.append(PERIOD[self.lang][plan.grain])
        for mt in metrics:
            if plan.share_only():
                break  # 钻石会员占销售额的百分比: the share is the answer
            value = self.value(mt, "m")
            select.append(f"{value} AS {self.q(self.name(mt))}")
            columns.append(self.name(mt))
            if plan.compare != "none":
                before = COMPARE[self.lang][plan.compare][0]
                prev, now, then = self.value(mt, "c"), self.value(mt, "m", False), self.value(mt, "c", False)
                earlier = f"{self.name(mt)}（{before}）" if self.lang == "zh" else f"{self.name(mt)} ({before})"
                change = change_name(self.name(mt), plan.compare, self.lang, self.in_points(mt))
                select.append(f"{prev} AS {self.q(earlier)}")
                columns.append(earlier)
                growth, amount = plan.change_columns(self.in_points(mt))
                if growth:
                    select.append(f"{self.change(mt, now, then)} AS {self.q(change)}")
                    columns.append(change)
                if amount:  # "变化了多少": the amount too
                    moved, amount = self.amount_column(mt), f"{now} - {then}" if not self.falling() else f"{then} - {now}"
                    select.append(f"{self.engine.round2(amount)} AS {self.q(moved)}")
                    columns.append(moved)
        if plan.share:
            first = self.value(metrics[0], "m", False)
            over = f"SUM({first}) OVER ({f'PARTITION BY {key_of}.p' if plan.grain else ''})"
            # "华东 / 华北 each: what share": the split's own named members over the whole of every member; a member
            # left out ("去掉小程序") leaves the whole too: the rest's shares of the rest
            named = [f.dimension for f in plan.filters if f.dimension in plan.dimensions and f.op == "in"] \
                if not plan.grain else []
            if plan.filters and (not keys or named):  # 钻石会员占了多少: the filtered part over the unfiltered whole
                kept = [f.dimension for f in plan.filters if f.dimension not in named] if keys else []
                whole = [self.metric(b) for b in self.bases(metrics[:1])]
                ctes |= {f"t_{b.id}": self.measure_cte(b, plan.window, plan.share_within + kept, total=True)
                         for b in whole}
                source += "".join(f" CROSS JOIN t_{b.id}" for b in whole)
                over = self.value(metrics[0], "t", False)
            select.append(f"{self.engine.round2(f'100.0 * {first} / NULLIF({over}, 0)')} AS {self.q(SHARE[self.lang])}")
            columns.append(SHARE[self.lang])
        sql = "WITH " + ", ".join(f"{n} AS ({s})" for n, s in ctes.items())
        if plan.count_members:  # "有多少个城市成交额超过100万": how many members pass (their keys, not names)
            return counted(self, sql, keys, source, metrics)  # and what those members add up to
        if (pair := plan.pair()) is not None:  # "华东和华南各卖了多少，差了多少": both in one row, and the gap
            raw = [f"{self.value(mt, 'm', False)} AS r{i}" for i, mt in enumerate(metrics)]  # the gap of exact values
            body, columns = paired(self, sql, f"SELECT {', '.join(select + raw)} FROM {source}", metrics, *pair)
            return Compiled(self.pretty(body), columns, self.dialect)
        if plan.limit_per and plan.limit and len(self.keys_dims) == 2 and not plan.having and not plan.grain:
            from wenshu.semantic.per_group import top_in_each  # "每个大区最畅销的商品": the top N in each region

            return Compiled(self.pretty(top_in_each(self, sql, select, columns, source, metrics)), columns, self.dialect)
        sql += f" SELECT {', '.join(select)} FROM {source}" + self.having(metrics) + self.ordering(metrics)
        return Compiled(self.pretty(sql), columns, self.dialect)

    def having(self, metrics) -> str:
        """Members whose total passes a bound ("cities whose GMV passed 2.5 million"): a condition on the
        measure's value per member, so the kept members keep their whole totals."""
        terms = []
        for h in self.plan.having:
            mt = self.metric(h.dimension)
            if mt not in metrics or h.op not in OPS or len(h.values) != 1:
                raise self.fail(f"a bound on the total of {h.dimension} needs that measure in the plan and one number",
                                f"{h.dimension} 合计的条件需要该度量在查询中，且只有一个数值")
            terms.append(f"{self.value(mt, 'm', False)} {OPS[h.op]} {literal(h.values[0])}")
        return " WHERE " + " AND ".join(terms) if terms else ""

    def falling(self) -> bool:
        """Ranked by how much each member fell: the amount shown is the fall, positive ("减少额")."""
        return self.plan.ranked_by_amount() and self.plan.order == "asc"

    def amount_column(self, mt) -> str:
        return (DECREASE if self.falling() else DIFFERENCE)[self.lang].format(self.name(mt))

    @staticmethod
    def in_points(mt) -> bool:
        """A percentage (a ratio scaled by 100) changes by points, anything else by a percentage of itself."""
        return isinstance(mt, Ratio) and mt.scale == 100

    def change(self, mt, now: str, then: str) -> str:
        if self.in_points(mt):
            return self.engine.round2(f"{now} - {then}")
        return self.engine.round2(f"100.0 * ({now} - {then}) / NULLIF({then}, 0)")

    def bases(self, metrics) -> list[str]:
        """The measures that `metrics` read: a ratio's numerator and denominator, each once."""
        out: list[str] = []
        for mt in metrics:
            for b in ([mt.numerator, mt.denominator] if isinstance(mt, Ratio) else [mt.id]):
                self.metric(b)
                if b not in out:
                    out.append(b)
        return out

    def value(self, mt, prefix: str, rounded: bool = True) -> str:
        if isinstance(mt, Ratio):
            num, den = self.filled(self.metric(mt.numerator), prefix), f"{prefix}_{mt.denominator}.v"
            scale = repr(float(mt.scale))  # a float: integer counts must not divide as integers
            raw = f"{scale} * {num} / NULLIF({den}, 0)"
            return self.engine.round2(raw) if rounded else raw
        ref = self.filled(mt, prefix)
        return self.engine.round2(ref) if rounded and (mt.agg in ("sum", "avg") or self.plan.per) else ref

    def filled(self, m: Measure, prefix: str) -> str:
        """A count or sum with no rows for a member another measure has (no refunds in 西北 last week) is 0,
        not missing; a total over no rows at all stays empty, so an answer with no data says so."""
        ref = f"{prefix}_{m.id}.v"
        return f"COALESCE({ref}, 0)" if self.key_of == "k" and m.agg in ("count", "count_distinct", "sum") \
            and not self.plan.per else ref

    def ordering(self, metrics) -> str:
        plan, out = self.plan, ""
        if plan.order or plan.limit:
            target = self.metric(plan.order_by) if plan.order_by else metrics[0]
            if target not in metrics:
                raise self.fail(f"order_by '{target.id}' is not a measure of the plan", f"排序度量「{target.id}」不在查询中")
            moved = plan.ranked_by_change()  # by the change column; a member without one comes last
            by = self.q(change_name(self.name(target), plan.compare, self.lang, self.in_points(target))
                        if moved else self.name(target))
            order = plan.order or "desc"
            if moved and plan.difference and not self.in_points(target):  # "掉得最多？掉了多少": by the amount
                by, order = self.q(self.amount_column(target)), "desc" if self.falling() else order
            out = f" ORDER BY {f'({by} IS NULL), ' if moved else ''}{by} {order.upper()}"
        elif plan.grain:  # each period's members in their own order (names, codes): a series per member; largest first
            # within each period lost a validation question and was even on development (the golds do both)
            out = f" ORDER BY {self.q(PERIOD[self.lang][plan.grain])}" + "".join(
                f", {self.key_of}.d{i}" for i in range(len(self.keys_dims)))
        elif self.keys_dims:
            out = " ORDER BY " + ", ".join(self.members_order(metrics))
        return out + (f" LIMIT {plan.limit}" if plan.limit else "")

    def members_order(self, metrics) -> list[str]:
        """The keys members come in: leading codes in their own order (一线, 新一线…; member tiers), and the first
        of two splits in its members' order ("每个城市再按渠道分": city by city); then within those the others by the
        measures, largest first, as a bar chart reads (ties: the next); kept on a total ("退款超过2笔的客户，笔数和
        金额"): by that total first."""
        lead = next((i for i, d in enumerate(self.keys_dims) if not own_order(d)), len(self.keys_dims))
        if len(self.keys_dims) > 1 and not any(d.key for d in self.keys_dims):  # not a member's own fields
            lead = max(lead, 1)
        kept = {h.dimension for h in self.plan.having}
        by = [f"{self.q(self.name(x))} DESC" for x in sorted(metrics, key=lambda x: x.id not in kept)]
        return [f"{self.key_of}.d{i}" for i in range(lead)] + (by if lead < len(self.keys_dims) else [])

    def pretty(self, sql: str) -> str:
        try:
            return sqlglot.transpile(sql, read=self.dialect, write=self.dialect, pretty=True)[0]
        except sqlglot.errors.SqlglotError:
            return sql


def compile_plan(model: SemanticModel, plan: QueryPlan, dialect: str = "sqlite", lang: str = "zh") -> Compiled:
    """SQL for `plan` in `dialect` (sqlite, postgresql, mysql, mariadb, duckdb); raises PlanNotCompilable."""
    model = routed(model, plan.via)  # "customers who live in …": their own city, not the delivery city
    if plan.rank_of:  # "成都排第几": every city's, ranked, Chengdu's row kept
        from wenshu.semantic.rank_of import compile_ranked

        return compile_ranked(Compiler, model, plan, dialect, "zh" if lang == "zh" else "en")
    if plan.records:
        from wenshu.semantic.detail import DetailCompiler  # a detail list: rows, not aggregates

        return DetailCompiler(model, plan, dialect, "zh" if lang == "zh" else "en").run()
    return Compiler(model, plan, dialect, "zh" if lang == "zh" else "en").run()
