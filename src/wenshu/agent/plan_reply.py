"""The reply a plan gives beside its rows: the sentence and chart of `agent.plan_answer.PlanView`, and the chips
(measure, dimension, filter, window, grain, comparison, share, top N, rows had or not), each carrying the plan
without it and the plans of its alternatives, so the web UI re-runs a changed plan with no model and no plan logic
of its own."""

from __future__ import annotations

from wenshu.agent.plan_answer import COMPARE, GRAIN, PlanView
from wenshu.i18n import pick
from wenshu.semantic.bounds import is_bound
from wenshu.semantic.compiled import key_column
from wenshu.semantic.labels import PER, counted_name
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan


def chips(view: PlanView) -> list[dict]:
    """One chip per part of the plan: its label, the plan without it (None when it cannot go) and the
    plans of its alternatives, so a click re-runs a plan with no model."""
    p, lang, out = view.plan, view.lang, []

    def plan_with(**update) -> dict:
        return p.model_copy(update=update).model_dump(mode="json", exclude_defaults=True)

    if p.records:
        out.append({"kind": "records", "id": p.records, "label": view.name(p.records), "remove": None, "options": []})
    others = {n["used"]: n["others"] for n in view.notes if n["kind"] == "ambiguous"}
    others |= {n["used"]: [n["instead_of"]] for n in view.notes if n["kind"] == "finer"}
    for mid in [] if p.records else p.measures:
        rest = [m for m in p.measures if m != mid]
        options = [{"label": view.name(o), "plan": plan_with(measures=[o if m == mid else m for m in p.measures],
                                                             order_by=None)} for o in others.get(mid, [])]
        out.append({"kind": "measure", "id": mid, "label": view.name(mid),
                    "remove": plan_with(measures=rest, order_by=None) if rest else None, "options": options})
    if p.count_members:  # removing it lists the members that pass
        name = counted_name(view.name(p.dimensions[0]) if p.dimensions else "", lang, p.grain)
        out.append({"kind": "count", "id": "count_members", "label": name,
                    "remove": plan_with(count_members=False), "options": []})
    for i, did in enumerate(p.dimensions):  # the members counted stay; a group of the count may go
        out.append({"kind": "dimension", "id": did, "label": pick(lang, f"by {view.name(did)}", f"按{view.name(did)}"),
                    "remove": None if p.count_members and i == 0 else plan_with(dimensions=[d for d in p.dimensions if d != did]),
                    "options": []})
    for f in p.filters:
        values = "、".join(view.value_label(f.dimension, v) for v in f.values)
        label = view.condition(f) if is_bound(view.model, f) else f"{view.name(f.dimension)}: {values}"
        out.append({"kind": "filter", "id": f.dimension, "label": label,
                    "remove": plan_with(filters=[x for x in p.filters if x is not f]), "options": []})
    for h in p.having:  # members whose total passes a bound: 销售额 > 2,500,000
        out.append({"kind": "filter", "id": h.dimension, "label": view.condition(h),
                    "remove": plan_with(having=[x for x in p.having if x is not h]), "options": []})
    for had in p.presence:  # members with (or without) rows: 订单量 = 0（2026-10-01 至 2026-12-07）
        out.append({"kind": "filter", "id": had.measure, "label": view.had(had),
                    "remove": plan_with(presence=[x for x in p.presence if x is not had]), "options": []})
    if p.window is not None:
        out.append({"kind": "window", "id": "window", "label": view.window_text(),
                    "remove": plan_with(window=None, compare="none"), "options": []})
    if p.grain:
        out.append({"kind": "grain", "id": p.grain, "label": pick(lang, f"by {GRAIN[p.grain][0]}", f"按{GRAIN[p.grain][1]}"),
                    "remove": None if p.count_members else plan_with(grain=None), "options": [
                        {"label": pick(lang, f"by {GRAIN[g][0]}", f"按{GRAIN[g][1]}"), "plan": plan_with(grain=g)}
                        for g in GRAIN if g != p.grain]})
    if p.per:
        out.append({"kind": "per", "id": p.per, "label": PER[lang][p.per].format("").strip(),
                    "remove": plan_with(per=None), "options": []})
    if p.compare != "none":
        other = "previous" if p.compare == "yoy" else "yoy"
        out.append({"kind": "compare", "id": p.compare, "label": COMPARE[p.compare][lang == "zh"],
                    "remove": plan_with(compare="none"),
                    "options": [{"label": COMPARE[other][lang == "zh"], "plan": plan_with(compare=other)}]})
    if p.share:
        out.append({"kind": "share", "id": "share", "label": pick(lang, "share of total", "占比"),
                    "remove": plan_with(share=False), "options": []})
    if p.limit:
        low, moved = p.order == "asc", p.ranked_by_change()  # moved: the N that fell (rose) most
        label = pick(lang, f"{('largest fall' if low else 'largest rise') if moved else ('bottom' if low else 'top')} {p.limit}",
                     f"{('降幅最大' if low else '增幅最大') if moved else ('后' if low else '前')} {p.limit}")
        if p.limit_per and len(p.dimensions) == 2:  # "每个大区最畅销的商品": the top N in each region
            group = view.name(p.dimensions[0])
            label = pick(lang, f"{label} in each {group}", f"每个{group}{label}")
        out.append({"kind": "top", "id": "top", "label": label,
                    "remove": plan_with(limit=None, order=None, order_by=None, by_change=False, limit_per=False),
                    "options": []})
    if p.rank_of and p.dimensions:  # "成都排第几": its rank among all; removed, the named member's value alone
        group = view.name(p.dimensions[0])
        out.append({"kind": "rank", "id": "rank", "label": pick(lang, f"rank among all {group}", f"在所有{group}中的排名"),
                    "remove": plan_with(rank_of=False, dimensions=[]), "options": []})
    return out


def planned_answer(model: SemanticModel | None, part: dict, q: dict, r: dict) -> dict | None:
    """{answer, chart, plan view} for a result the plan path produced; None for free SQL."""
    if model is None or part.get("path") != "plan" or not part.get("plan"):
        return None
    view = PlanView(model, QueryPlan.model_validate(part["plan"]), q.get("lang", "zh"), part.get("plan_notes"))
    keys = {key_column(view.name(d.id), view.lang) for d in model.dimensions if d.key and d.id in view.plan.dimensions}
    shown = [i for i, c in enumerate(r["columns"]) if c not in keys]  # the sentence and chart name members by name
    columns, rows = [r["columns"][i] for i in shown], [[row[i] for i in shown] for row in r["rows"]]
    return {"answer": view.explain(columns, rows),
            "chart": view.chart(columns, rows, q["question"][:60]),
            "plan": {"plan": part["plan"], "chips": chips(view), "notes": part.get("plan_notes") or []}}
