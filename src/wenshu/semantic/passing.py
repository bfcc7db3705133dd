"""How many members pass a bound on their totals, and what those members add up to.

"有多少个城市成交额超过100万": how many cities; "按大区拆一下": per region, how many of its cities passed;
"上个月下单超过3次的客户一共贡献了多少GMV": how many customers placed more than 3 orders, and their GMV together;
"…的客户，平均客单价是多少": a ratio of their sums (their GMV over their orders), never an average of averages.

`kept` holds one row per member whose totals pass (`Compiler.having`), with each base measure of the totals asked
beside it (every measure of the plan the bound is not on); the count and the totals are taken over it, for all
members or per group (the keys after the first). Names are looked up outside the count, so no engine runs a
correlated lookup inside an aggregate."""

from __future__ import annotations

from wenshu.semantic.compiled import Compiled
from wenshu.semantic.labels import PERIOD, counted_name
from wenshu.semantic.model import Ratio


def _summable(c, mt) -> bool:
    """Whether the members' totals of `mt` add up to theirs together: sums and row counts do (a ratio of two
    of them too); an average or a count of distinct values does not."""
    parts = [c.metric(mt.numerator), c.metric(mt.denominator)] if isinstance(mt, Ratio) else [mt]
    return all(p.agg in ("sum", "count") for p in parts)


def counted(c, sql: str, keys: list[str], source: str, metrics) -> Compiled:
    """The compiled count of passing members (and their totals); `c` is the plan's Compiler after its CTEs."""
    plan, key_of = c.plan, c.key_of
    name = counted_name(c.name(c.keys_dims[0]) if c.keys_dims else "", c.lang, None if c.keys_dims else plan.grain)
    bounded = {h.dimension for h in plan.having}
    totals = [mt for mt in metrics if mt.id not in bounded]
    if not all(_summable(c, mt) for mt in totals):
        raise c.fail("a total over the members that pass adds up sums and counts only",
                     "满足条件的成员合计只能汇总求和或计数类度量")
    bases = c.bases(totals)
    raw = [f"{c.filled(c.metric(b), 'm')} AS b{i}" for i, b in enumerate(bases)]
    kept = f"SELECT {', '.join([f'{key_of}.{k} AS {k}' for k in keys] + raw)} FROM {source}" + c.having(metrics)
    at = {b: f"SUM(kept.b{i})" for i, b in enumerate(bases)}

    def total(mt) -> str:
        if isinstance(mt, Ratio):
            return c.engine.round2(f"{float(mt.scale)!r} * {at[mt.numerator]} / NULLIF({at[mt.denominator]}, 0)")
        return c.engine.round2(at[mt.id]) if mt.agg == "sum" else at[mt.id]

    names = [c.name(mt) for mt in totals]
    groups = keys[1:]
    if not groups:
        select = [f"COUNT(*) AS {c.q(name)}"] + [f"{total(mt)} AS {c.q(n)}" for mt, n in zip(totals, names)]
        return Compiled(c.pretty(sql + f" SELECT {', '.join(select)} FROM ({kept}) kept"), [name, *names], c.dialect)
    by = ", ".join(f"kept.{k}" for k in groups)
    select, columns = [], []
    for k in groups:
        label = PERIOD[c.lang][plan.grain] if k == "p" else c.name(c.keys_dims[int(k[1:])])
        select.append(f"{'g.p' if k == 'p' else c.shown(c.keys_dims[int(k[1:])], f'g.{k}', keyed=True)}"
                      f" AS {c.q(label)}")
        columns.append(label)
    inner = ", ".join([f"{by}, COUNT(*) AS n"] + [f"{total(mt)} AS t{i}" for i, mt in enumerate(totals)])
    select += [f"g.n AS {c.q(name)}"] + [f"g.t{i} AS {c.q(n)}" for i, n in enumerate(names)]
    sql += (f" SELECT {', '.join(select)} FROM (SELECT {inner} FROM ({kept}) kept GROUP BY {by}) g"
            f" ORDER BY {'g.p' if 'p' in groups else 'g.n DESC, ' + by.replace('kept.', 'g.')}")
    return Compiled(c.pretty(sql), [*columns, name, *names], c.dialect)
