"""A comparison over a trend: each period against its own earlier one ("最近6个月每月GMV和环比", "monthly
revenue this year with YoY growth").

The trend is compiled as usual over a window reaching back far enough for the first period's earlier one
(one period before for 环比, one year before for 同比); the earlier value is then read with LAG over the
periods of each member, and only the asked window's periods are shown, each with its change (the earlier
value is the row above, or a year of rows above). LAG counts rows, so the series must have every period:
a period with no rows at all would shift the comparison (the demo and most business data have rows every
day). A 同比 by day is not compiled: a year is no fixed number of days.
"""

from __future__ import annotations

from datetime import timedelta

from wenshu.semantic.compiled import Compiled, literal
from wenshu.semantic.labels import PERIOD, change_name
from wenshu.semantic.plan import QueryPlan, Window, add_months

PER_YEAR = {"week": 52, "month": 12, "quarter": 4, "year": 1}  # 同比: this many periods back


def reach(window: Window, grain: str, compare: str) -> Window:
    """The window extended back to the first period's earlier one."""
    if compare == "yoy":
        return Window(start=add_months(window.start, -12), end=window.end)
    if compare == "week":
        return Window(start=window.start - timedelta(days=7), end=window.end)
    back = {"day": timedelta(days=1), "week": timedelta(days=7)}
    if grain in back:
        return Window(start=window.start - back[grain], end=window.end)
    return Window(start=add_months(window.start, -{"month": 1, "quarter": 3, "year": 12}[grain]), end=window.end)


def compile_trend_compare(compiler_cls, model, plan: QueryPlan, dialect: str, lang: str) -> Compiled:
    """The plan's trend with each period's change against its earlier one; `compiler_cls`: semantic.compile.Compiler."""
    compiler = compiler_cls(model, plan, dialect, lang)
    lag = 1 if plan.compare == "previous" else {"day": 7, "week": 1}.get(plan.grain or "") if plan.compare == "week" \
        else PER_YEAR.get(plan.grain or "")
    if lag is None:
        raise compiler.fail(f"a {plan.compare} comparison by {plan.grain} is not supported", "暂不支持这个粒度的同比")
    if plan.share:
        raise compiler.fail("a share over a trend compared period by period is not supported", "暂不支持趋势对比中的占比")
    trend = plan.model_copy(update={"compare": "none", "window": reach(plan.window, plan.grain, plan.compare),
                                    "order": None, "order_by": None, "limit": None})
    inner = compiler_cls(model, trend, dialect, lang).run()
    q, engine = compiler.q, compiler.engine
    period = PERIOD[lang][plan.grain]
    keys, values = inner.columns[:len(plan.dimensions)], inner.columns[len(plan.dimensions) + 1:]  # keys, period, measures
    partition = f"PARTITION BY {', '.join(q(k) for k in keys)} " if keys else ""
    select, columns = [q(k) for k in [*keys, period]], [*keys, period]
    for v, mt in zip(values, [compiler.metric(x) for x in plan.measures]):
        # the earlier value is the row above (or a year of rows above): only the change is added
        change = change_name(v, plan.compare, lang, compiler.in_points(mt))
        prev = f"LAG({q(v)}, {lag}) OVER ({partition}ORDER BY {q(period)})"
        select += [q(v), f"{compiler.change(mt, q(v), prev)} AS {q(change)}"]
        columns += [v, change]
    first = engine.bucket(plan.grain, literal(plan.window.start.isoformat()))
    sql = (f"SELECT {', '.join(q(c) for c in columns)} FROM (SELECT {', '.join(select)} FROM ({inner.sql}) trend) compared"
           f" WHERE {q(period)} >= {first} ORDER BY {', '.join(q(k) for k in keys + [period])}")
    if plan.limit:
        sql += f" LIMIT {plan.limit}"
    return Compiled(compiler.pretty(sql), columns, compiler.dialect)
