"""The plan step: a business question through the datasource's semantic model, when it maps onto it.

The model fills a query plan under a JSON schema whose enums are this datasource's measure and
dimension ids (its vocabulary is the prompt's fixed part, kept as a saved prefix); the time window
comes from the time-phrase resolver, not the model; `semantic.grounding` keeps only what the question
names; `semantic.compile` writes the SQL. The answer then goes through the same validate, execute,
evaluate and explain steps as free SQL. When the datasource has no semantic model, the question names
none of its measures, or the plan cannot compile, the step says why and free SQL answers.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.agent.context import AgentContext
from wenshu.agent.prompts import render
from wenshu.agent.state import AgentState
from wenshu.contracts import Event
from wenshu.errors import WenshuError
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.grounding import ground
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan
from wenshu.semantic.schema import plan_schema
from wenshu.semantic.windows import question_window


def _words(entry) -> str:
    extra = f" ({', '.join(entry.synonyms[:6])})" if entry.synonyms else ""
    return f"{entry.zh} / {entry.en}{extra}"


def plan_messages(model: SemanticModel, question: str) -> list:
    measures = "\n".join(f"- {e.id}: {_words(e)}" for e in [*model.measures, *model.ratios])
    dims = "\n".join(f"- {d.id}: {_words(d)}" + (f"; values: {', '.join(d.labels.values())}" if d.labels else "")
                     for d in model.dimensions)
    system = render("plan_system", datasource=model.datasource, measures=measures, dimensions=dims)
    return [SystemMessage(system, additional_kwargs={"prefix_cache": f"{model.datasource}#plan"}),
            HumanMessage(render("plan_user", question=question).strip())]


def fill_schema(model: SemanticModel) -> dict:
    """The plan's schema for the model: the window is the resolver's, never the model's."""
    schema = plan_schema(model)
    schema["properties"].pop("window", None)
    return schema


def plan_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    q, part = state["query"], dict(state.get("sql") or {})
    if not ctx.settings.semantic_path or ctx.semantic is None:
        return {}, "skipped", "semantic path off"
    if any(t.get("sql") for t in state.get("turns") or []):
        return {}, "skipped", "a follow-up: free SQL edits the previous answer"
    model = ctx.semantic(q["datasource"])
    if model is None:
        return {}, "skipped", "no semantic model for this datasource"
    try:
        filled = ctx.models.structured("strong", plan_messages(model, q["question"]), QueryPlan,
                                       json_schema=fill_schema(model),
                                       on_progress=lambda p: ctx.emit(Event(type="progress", node="plan", data=p)))
    except WenshuError as err:
        return {}, "skipped", f"no plan from the model: {err.en[:120]}"
    grounded = ground(filled, model, q["question"])
    if grounded.plan is None:
        return {}, "skipped", grounded.reason
    plan = grounded.plan.model_copy(update={"window": question_window(q["question"])})
    try:
        compiled = compile_plan(model, plan, state["schema"]["dialect"], q.get("lang", "zh"))
    except WenshuError as err:
        return {}, "skipped", f"the plan does not compile: {err.en}"
    part.update({"sql": compiled.sql, "attempted": True, "validation": None, "path": "plan",
                 "plan": plan.model_dump(mode="json", exclude_defaults=True)})
    detail = "plan: " + ", ".join(plan.measures) + (f" by {', '.join(plan.dimensions)}" if plan.dimensions else "")
    if grounded.dropped:
        detail += f" (dropped, not in the question: {', '.join(grounded.dropped)})"
    return {"sql": part}, "ok", detail
