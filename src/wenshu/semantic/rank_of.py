"""The rank of a member among all members of a dimension ("成都上个月的成交额在所有收货城市里排第几", "where did Chengdu
rank among all delivery cities by GMV last month?"): every member's measure, ranked with `RANK() OVER (ORDER BY …
DESC)` (ties share a rank), and only the named members' rows kept, with their value and rank, best first.

`said` finds the question's words for it and blanks them, so the rest reads as a measure of the named member (not a
top N); `ranked` turns that plan (one measure, the member a filter) into a split by the member's dimension with
`rank_of` (when it names no such member, the agent reads the question as said); `compile_ranked` writes the SQL
around what the compiler builds for the whole split."""

from __future__ import annotations

import re

from wenshu.semantic.compiled import Compiled, literal
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan

_SAID = re.compile(r"排(?:在|名)?第几(?:名|位)?|排名(?:是)?(?:多少|第几|怎么样|如何)|第几名|名次(?:是)?(?:多少|如何|第几)"
                   r"|\bwhat\s+(?:rank|position)\b"
                   r"|(?P<ask>\b(?:where|how)\s+(?:does|did|do|is|was)\b)[^.?!]{1,60}?(?P<word>\brank(?:ed|s)?\b)"
                   r"|\brank(?:ed|s)?\b(?=\s+(?:among|out of)\b)", re.I)
RANK = {"zh": "排名", "en": "rank"}


def said(question: str) -> str | None:
    """The question with its words for a member's rank blanked (same length), or None when it asks no rank of one."""
    found = list(_SAID.finditer(question))
    if not found:
        return None
    out = question
    for m in found:  # "where did Chengdu rank": the asking words and "rank", not the member between them
        for s, e in [m.span("ask"), m.span("word")] if m.group("ask") else [m.span()]:
            out = out[:s] + " " * (e - s) + out[e:]
    return out


def ranked(model: SemanticModel, plan: QueryPlan) -> QueryPlan | None:
    """`plan` as the rank of its named members among all of their dimension's (华东和华南各排第几: each its own); None
    when no one category dimension has members named, or the plan has more than one measure."""
    kinds = {d.id: d.kind for d in model.dimensions}
    named = [f for f in plan.filters if f.op == "in" and kinds.get(f.dimension) == "category"
             and plan.dimensions in ([], [f.dimension])]
    if len(named) != 1 or len(plan.measures) != 1 or plan.records or plan.grain or plan.compare != "none":
        return None
    return plan.model_copy(update={"dimensions": [named[0].dimension], "rank_of": True, "order": None, "order_by": None,
                                   "limit": None, "share": False})


def compile_ranked(compiler_cls, model: SemanticModel, plan: QueryPlan, dialect: str, lang: str) -> Compiled:
    """Every member's measure without the member's filter, ranked, and the named members' rows kept (the plan as it
    is when a chip took away the split or the member: nothing left to rank)."""
    member = next((f for f in plan.filters if f.dimension in plan.dimensions[:1] and f.op == "in"), None)
    if member is None:
        return compiler_cls(model, plan.model_copy(update={"rank_of": False}), dialect, lang).run()
    whole = plan.model_copy(update={"filters": [f for f in plan.filters if f is not member], "rank_of": False,
                                    "order": "desc", "limit": None})
    c = compiler_cls(model, whole, dialect, lang)
    inner = c.run()
    dim = next(d for d in model.dimensions if d.id == member.dimension)
    codes = {str(v): c for c in {*dim.labels, *dim.labels_en} for v in (c, dim.labels.get(c), dim.labels_en.get(c)) if v}
    shown = [dim.label(codes.get(str(v), str(v)), lang) or str(v) for v in member.values]  # as the split shows it
    key, value, rank = c.q(inner.columns[0]), c.q(inner.columns[1]), c.q(RANK[lang])
    body = f"SELECT all_.*, RANK() OVER (ORDER BY {value} DESC) AS {rank} FROM ({inner.sql}) all_"
    sql = f"SELECT * FROM ({body}) ranked_ WHERE {key} IN ({', '.join(literal(v) for v in shown)}) ORDER BY {rank}"
    return Compiled(c.pretty(sql), [*inner.columns, RANK[lang]], dialect)
