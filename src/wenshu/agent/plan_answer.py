"""An answer from the plan that produced it: the explanation and the chart (the chips: `agent.plan_reply`).

The plan says what the numbers are, so the explanation states the measure, the scope (filters), the window and
the comparison in the user's language ("2026-11-01 至 2026-11-30 华东 销售额为 1,938,093.20 元，环比 +12.30 %"),
without a model call. The chart follows the plan: a trend is a line, a share a pie (or bars), a comparison grouped
bars, a split bars."""

from __future__ import annotations

from datetime import timedelta

from wenshu.agent.explain import fmt_value as _fmt
from wenshu.i18n import pick
from wenshu.semantic.bounds import SYMBOL, bound_name, is_bound
from wenshu.semantic.labels import PER
from wenshu.semantic.model import Measure, SemanticModel
from wenshu.semantic.plan import EARLIEST, QueryPlan
from wenshu.sql.charts import choose_chart

GRAIN = {"day": ("day", "天"), "week": ("week", "周"), "month": ("month", "月"), "quarter": ("quarter", "季度"),
         "year": ("year", "年")}
COMPARE = {"yoy": ("year over year", "同比"), "previous": ("vs previous period", "环比"),
           "week": ("vs the same days last week", "周同比")}


class PlanView:
    """Names, columns and chips of one plan on one semantic model, in one language."""

    def __init__(self, model: SemanticModel, plan: QueryPlan, lang: str, notes: list[dict] | None = None):
        self.model, self.plan, self.lang, self.notes = model, plan, "zh" if lang == "zh" else "en", notes or []
        self.entries = {e.id: e for e in model.entries()}

    def name(self, eid: str) -> str:
        e = self.entries.get(eid)
        name = eid if e is None else (e.zh if self.lang == "zh" else e.en)
        return PER[self.lang][self.plan.per].format(name) if self.plan.per and isinstance(e, Measure) else name

    def num(self, eid: str, v) -> str:
        """A measure's value: a whole number of a summed or counted measure without decimals (263 件, not
        263.00 件, when the column stores REAL); ratios and shares keep theirs."""
        whole = isinstance(v, float) and v.is_integer() and isinstance(self.entries.get(eid), Measure)
        return _fmt(int(v) if whole and not self.plan.per else v)

    def unit(self, eid: str) -> str:
        u = getattr(self.entries.get(eid), "unit", None) or ""
        return "" if not u or (self.lang == "en" and not u.isascii()) else (u if u == "%" else f" {u}")

    def value_label(self, did: str, value) -> str:
        d = self.entries.get(did)
        return (d.label(str(value), self.lang) if d is not None and hasattr(d, "label") else None) or str(value)

    def window_text(self) -> str:
        return self.dates(self.plan.window)

    def earlier_text(self) -> str:
        """The comparison's dates when the question named them ("all of last quarter"), else "" (the shift)."""
        earlier = self.plan.earlier()
        return self.dates(earlier) if earlier is not None and earlier == self.plan.against else ""

    def dates(self, w) -> str:
        if w is None:
            return ""
        if w.start <= EARLIEST:  # "signed up before this year"
            return pick(self.lang, f"before {w.end.isoformat()}", f"{w.end.isoformat()} 之前")
        last = w.end - timedelta(days=1)
        if last == w.start:
            return w.start.isoformat()
        return f"{w.start.isoformat()} {pick(self.lang, 'to', '至')} {last.isoformat()}"

    def condition(self, f) -> str:
        """A filter as the answer states it: 大区=华东, 渠道≠App, 实付金额 > 5000 (a row's value), 销售额 >
        2,500,000 (a member's total)."""
        if is_bound(self.model, f):
            return f"{bound_name(self.model, f.dimension, self.lang)} {SYMBOL.get(f.op, f.op)} {_fmt(f.values[0])}"
        values = "、".join(self.value_label(f.dimension, v) for v in f.values)
        return f"{self.name(f.dimension)}{'≠' if f.op in ('not_in', 'ne') else '='}{values}"

    def had(self, p) -> str:
        """Members kept by whether they had rows of a measure: 订单量为 0（2026-10-01 至 2026-12-07）, "orders ≥ 1 (ever)"."""
        when = self.dates(p.period(self.plan.window)) or pick(self.lang, "ever", "从未" if not p.has else "曾经")
        said = f"{self.name(p.measure)} {'≥ 1' if p.has else '= 0'}"
        return pick(self.lang, f"{said} ({when})", f"{said}（{when}）")

    def scope(self) -> str:
        parts = [self.window_text(), *(self.condition(f) for f in [*self.plan.filters, *self.plan.having]),
                 *(self.had(p) for p in self.plan.presence), *(self.route(r) for r in self.plan.via)]
        return pick(self.lang, ", ".join(p for p in parts if p), "，".join(p for p in parts if p))

    def route(self, via: str) -> str:
        """The lookup the plan's dimensions are reached through, said as whose they are: 按客户的城市, "by the
        customer's city" (not the orders' delivery city)."""
        rel = next((r for r in self.model.relationships if r.from_ == via), None)
        if rel is None:
            return ""
        (owner_table, _), (target_table, _) = rel.ends()
        owner = next((d.id for d in self.model.dimensions if d.key and d.table.lower() == owner_table.lower()), None)
        target = next((d.id for d in self.model.dimensions if d.table.lower() == target_table.lower()), None)
        if owner is None or target is None:
            return ""
        owner, target = self.name(owner), self.name(target)
        return pick(self.lang, f"by the {owner}'s {target}", f"按{owner}的{target}")

    def whole(self) -> str:
        """The filters a share's whole keeps ("of all orders (大区=华北)"), else nothing: the whole is everything."""
        kept = [self.condition(f) for f in self.plan.filters if f.dimension in self.plan.share_within]
        return pick(self.lang, f" ({', '.join(kept)})", f"（{'，'.join(kept)}）") if kept else ""

    # -- the explanation ------------------------------------------------------------------------------
    def listed(self, rows: list[list]) -> str:
        """A detail list: how many rows of what, in which scope, ranked by what."""
        p, lang, scope = self.plan, self.lang, self.scope()
        what = self.name(p.records)
        ranked = pick(lang, f", {'smallest' if p.order == 'asc' else 'largest'} {self.name(p.order_by)} first",
                      f"，按{self.name(p.order_by)}从{'小到大' if p.order == 'asc' else '大到小'}") if p.order_by else ""
        head = pick(lang, f"{scope}: " if scope else "", f"{scope}，" if scope else "")
        if not rows:
            return head + pick(lang, f"no {what} rows match.", f"没有符合条件的{what}。")
        return head + pick(lang, f"{len(rows)} {what} rows{ranked}.", f"共 {len(rows)} 条{what}{ranked}。")

    def explain(self, columns: list[str], rows: list[list]) -> str:
        p, lang = self.plan, self.lang
        if p.records:
            return self.listed(rows)
        first = p.measures[0]
        keys = len(p.dimensions) + (1 if p.grain else 0)
        scope = self.scope()
        head = pick(lang, f"{scope}: " if scope else "", f"{scope}，" if scope else "")
        if not rows:
            text = head + pick(lang, "no matching data.", "没有符合条件的数据。")
        elif p.count_members and keys <= 1:  # "有多少个城市成交额超过100万": the number is the answer (and what
            told = [(c, _fmt(v)) for c, v in zip(columns, rows[0])]  # those members add up to)
            text = head + pick(lang, ", ".join(f"{c}: {v}" for c, v in told) + ".", "，".join(f"{c}为 {v}" for c, v in told) + "。")
        elif p.count_members:  # "按大区拆一下": how many passed in each group
            n = keys - 1  # the groups' columns, then the count
            best = max(rows, key=lambda r: r[n] or 0)
            by, label = pick(lang, " and ".join(columns[:n]), "、".join(columns[:n])), " / ".join(str(x) for x in best[:n])
            text = head + pick(lang, f"{columns[n]} by {by}, {len(rows)} rows; the most is {label} with {_fmt(best[n])}.",
                               f"按{by}的{columns[n]}，共 {len(rows)} 行；最多的是 {label}（{_fmt(best[n])}）。")
        elif p.share_only():
            text = head + pick(lang, f"{_fmt(rows[0][-1])} % of all {self.name(first)}{self.whole()}.",
                               f"占全部{self.name(first)}{self.whole()}的 {_fmt(rows[0][-1])} %。")
        elif p.pair():  # both members, then the gap: "华东销售额 2,867,510.57，华南销售额 …，销售额差额 …"
            told = [f"{c} {self.num(p.measures[i // 3], v)}" for i, (c, v) in enumerate(zip(columns, rows[0]))]
            text = head + pick(lang, ", ".join(told) + ".", "，".join(told) + "。")
        elif keys == 0:
            parts, at = [], 0  # each measure's columns: value (earlier, growth, and the amount of a non-rate)
            for mid in p.measures:
                v, i = rows[0][at], at
                e = self.entries.get(mid)
                shown = p.change_columns(getattr(e, "scale", 1) == 100)
                at += 1 if p.compare == "none" else 2 + sum(shown)
                part = pick(lang, f"{self.name(mid)} is {self.num(mid, v)}{self.unit(mid)}",
                            f"{self.name(mid)}为 {self.num(mid, v)}{self.unit(mid)}")
                if p.compare != "none":
                    growth, before = rows[0][i + 2], rows[0][i + 1]
                    sign = "+" if isinstance(growth, (int, float)) and growth > 0 else ""
                    word, dates = COMPARE[p.compare][lang == "zh"], self.earlier_text()
                    change = f"{sign}{_fmt(growth)} %" if shown[0] else f"{sign}{self.num(mid, growth)}{self.unit(mid)}"
                    part += pick(lang, f", {change} {word} ({dates or 'before'}: {self.num(mid, before)}{self.unit(mid)})",
                                 f"，{word} {change}（对比期{dates} {self.num(mid, before)}{self.unit(mid)}）")
                parts.append(part)
            if p.share:
                parts.append(pick(lang, f"{_fmt(rows[0][-1])} % of the total{self.whole()}",
                                  f"占总体{self.whole()}的 {_fmt(rows[0][-1])} %"))
            text = head + pick(lang, "; ".join(parts) + ".", "；".join(parts) + "。")
        elif p.grain and not p.limit:
            v0, v1 = rows[0][keys], rows[-1][keys]
            g = GRAIN[p.grain][lang == "zh"]
            text = head + pick(lang, f"{self.name(first)} by {g}: from {self.num(first, v0)} ({rows[0][keys - 1]}) to {self.num(first, v1)} "
                               f"({rows[-1][keys - 1]}), {len(rows)} periods.",
                               f"{self.name(first)}按{g}：从 {self.num(first, v0)}（{rows[0][keys - 1]}）到 {self.num(first, v1)}"
                               f"（{rows[-1][keys - 1]}），共 {len(rows)} 期。")
        else:
            moved, amount = p.ranked_by_change(), p.ranked_by_amount()  # tell the largest move (a fall: its size)
            col, low = len(columns) - 1 if p.share else keys + 2 if moved else keys, p.order == "asc" and not amount
            best = (min if low else max)(rows, key=lambda r: r[col] if r[col] is not None else float("inf" if low else "-inf"))
            label, fell = " / ".join(str(x) for x in best[:keys]), amount and p.order == "asc"
            what = pick(lang, "share" if p.share else f"{self.name(first)} {'decrease' if fell else 'change'}" if moved
                        else self.name(first), "占比" if p.share else f"{self.name(first)}{'减少额' if fell else '变化'}"
                        if moved else self.name(first))
            pct = p.share or moved and not amount  # ranked by the amount: the amount, in the measure's unit
            unit, shown = (" %", _fmt(best[col])) if pct else (self.unit(first), self.num(first, best[col]))
            splits = [self.name(d) for d in p.dimensions] + ([GRAIN[p.grain][lang == "zh"]] if p.grain else [])
            by = pick(lang, " and ".join(splits), "、".join(splits))
            text = head + pick(lang, f"{self.name(first)} by {by}, {len(rows)} rows; the {'lowest' if low else 'highest'} "
                               f"{what} is {label} with {shown}{unit}.",
                               f"按{by}的{self.name(first)}，共 {len(rows)} 行；{what}{'最低' if low else '最高'}的是 "
                               f"{label}（{shown}{unit}）。")
        return text + "".join(self.note(n) for n in self.notes)

    def note(self, n: dict) -> str:
        if n["kind"] == "near":
            return pick(self.lang, f" “{n['said']}” is read as {self.name(n['used'])}.",
                        f"「{n['said']}」按「{self.name(n['used'])}」理解。")
        if n["kind"] == "finer":
            return pick(self.lang, f" {self.name(n['instead_of'])} cannot be split this way, so this is "
                        f"{self.name(n['used'])}.", f"{self.name(n['instead_of'])}不能按此拆分，这里用的是"
                        f"「{self.name(n['used'])}」。")
        others = ", ".join(self.name(o) for o in n["others"])
        return pick(self.lang, f" Computed as {self.name(n['used'])}; also possible: {others}.",
                    f"按「{self.name(n['used'])}」计算；也可以选择：{others}。")

    # -- the chart --------------------------------------------------------------------------------------
    def chart(self, columns: list[str], rows: list[list], title: str) -> dict | None:
        p = self.plan
        keys = len(p.dimensions) + (1 if p.grain else 0)
        if p.records or p.count_members and keys <= 1:
            return None  # a list of rows is a table, a count of members one number (and their totals a few)
        if p.count_members:  # a count per group: one bar each
            return _project(columns, rows, list(range(keys)), "aggregate", title)
        if p.grain:
            picked = list(range(keys)) + [keys + i * (3 if p.compare != "none" else 1) for i in range(len(p.measures))]
            return _project(columns, rows, picked, "trend", title)
        if p.share and keys:
            return _project(columns, rows, [*range(keys), len(columns) - 1], "share", title)
        if p.pair() and rows:  # the two members as two bars
            member = pick(self.lang, "member", "成员")
            return choose_chart([member, self.name(p.measures[0])], [[columns[0], rows[0][0]], [columns[1], rows[0][1]]],
                                "compare", title)
        if p.compare != "none" and keys == 1:
            return _project(columns, rows, [0, 1, 2], "compare", title)
        if p.compare != "none" and keys == 0:
            before, now = pick(self.lang, "earlier period", "对比期"), pick(self.lang, "this period", "本期")
            return choose_chart([pick(self.lang, "period", "时期"), self.name(p.measures[0])],
                                [[before, rows[0][1]], [now, rows[0][0]]] if rows else [], "compare", title)
        if keys:
            return _project(columns, rows, [*range(keys), keys], "top_n" if p.limit else "aggregate", title)
        return None


def _project(columns: list[str], rows: list[list], picked: list[int], kind: str, title: str) -> dict | None:
    return choose_chart([columns[i] for i in picked], [[r[i] for i in picked] for r in rows], kind, title=title)
