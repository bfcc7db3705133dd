"""The top N within each member of a split ("每个大区最畅销的商品", "the top 3 brands by revenue in each region"): the
ranked dimension's members numbered inside each member of the other (`ROW_NUMBER() OVER (PARTITION BY …)`, which
every engine the compiler writes for has), the first N of each kept.

`in_each` reads which of two split dimensions the question puts "each" before (每个, 各, each, every, per, in each),
the other being the one ranked; `top_in_each` writes the SQL from what the compiler has built."""

from __future__ import annotations

import re

from wenshu.semantic.model import SemanticModel

_EACH = r"(?:每一?个|每|各个?|\beach\s+|\bevery\s+|\bper\s+|\bfor each\s+|\bin each\s+|\bwithin each\s+)"


def in_each(model: SemanticModel, question: str, dims: list[str]) -> str | None:
    """Of two split dimensions, the one said after an "each" word, when only one is: its members are the groups."""
    if len(dims) != 2:
        return None
    words = {d.id: [w for w in d.words() if w] for d in model.dimensions if d.id in dims}
    marked = [d for d in dims if any(re.search(_EACH + r"\s*" + re.escape(w) + (r"(?![a-z])" if w.isascii() else ""),
                                               question, re.I) for w in words.get(d, []))]
    return marked[0] if len(marked) == 1 else None


def top_in_each(c, sql: str, select: list[str], columns: list[str], source: str, metrics) -> str:
    """`sql` (the measures' CTEs) with the answer's rows numbered inside each member of the first dimension by the
    ranked measure, the first `limit` of each kept: one per group ordered by the measure, several group by group."""
    plan = c.plan
    target = c.metric(plan.order_by) if plan.order_by else metrics[0]
    order = (plan.order or "desc").upper()
    number = f"ROW_NUMBER() OVER (PARTITION BY {c.key_of}.d0 ORDER BY {c.value(target, 'm', False)} {order})"
    inner = f"SELECT {', '.join(select)}, {number} AS rn_ FROM {source}"
    by = f"{c.q(c.name(target))} {order}"
    tail = by if plan.limit == 1 else f"{c.q(c.name(c.keys_dims[0]))}, {by}"
    shown = ", ".join(c.q(x) for x in columns)
    return f"{sql} SELECT {shown} FROM ({inner}) ranked_ WHERE rn_ <= {plan.limit} ORDER BY {tail}"
