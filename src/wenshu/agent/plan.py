"""The plan step: a business question through the datasource's semantic model, when it maps onto it.

Three ways a plan arrives:
- a first question: the model fills a query plan under a JSON schema whose enums are this
  datasource's measure and dimension ids (its vocabulary is the prompt's fixed part, kept as a saved
  prefix); `semantic.grounding` keeps it to what the question says; the time window comes from the
  time-phrase resolver, not the model;
- a follow-up to a planned answer: `semantic.edits` changes the previous turn's plan as the follow-up
  says ("只看华东区", "按城市拆开", "那这周呢"), with no model call;
- a plan given with the request (the web UI's chips): compiled as it is, with no model call.
`semantic.compile` writes the SQL, which then goes through the same validate, execute, evaluate and
explain steps as free SQL. When the datasource has no semantic model, the question names none of its
measures, or the plan cannot compile, the step says why and free SQL answers.
"""

from __future__ import annotations

from dataclasses import replace

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import ValidationError

from wenshu.agent.context import AgentContext
from wenshu.prompts import render
from wenshu.agent.state import AgentState
from wenshu.contracts import Event
from wenshu.errors import WenshuError
from wenshu.semantic import rank_of
from wenshu.semantic.bounds import row_bounds
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground, prefer_finer, unanswerable, unpinned
from wenshu.semantic.cues import cue
from wenshu.semantic.fields import fields_asked
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import headlined, read
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.plan import QueryPlan
from wenshu.semantic.presence import kept_members, said_presence
from wenshu.semantic.rows_scope import dated, scoped
from wenshu.semantic.schema import plan_schema
from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.windows import followup_window, named_earlier, plan_window


class NoPlan(Exception):
    """Why the plan path does not answer this turn (free SQL does)."""


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
    """The plan's schema for the model: what only a model can choose. The window is the resolver's, and
    comparison, share, direction and bounds are read from the question's own words (`semantic.grounding`), so
    the model is not asked for them: fewer tokens to write, nothing to overrule."""
    schema = plan_schema(model)
    for key in ("window", "compare", "share", "order", "records", "per", "by_change", "difference", "growth", "having", "count_members",
                "value_too", "share_within", "limit_per", "rank_of"):
        schema["properties"].pop(key, None)
    return schema


def _from_model(state: AgentState, ctx: AgentContext, model: SemanticModel,
                question: str) -> tuple[QueryPlan, list[dict], str]:
    """A first question's plan; a clause on what the members did or did not do ("这个季度还一单没下的客户") is
    read apart (`semantic.presence`) and the rest of the question as usual."""
    if (blanked := rank_of.said(question)) is not None:  # "成都排第几": every city's measure, ranked, Chengdu's row kept
        plan, notes, why = _from_model(state, ctx, model, blanked)
        if (ranked := rank_of.ranked(model, plan)) is not None:  # else no member named: the question read as said
            return ranked, notes, why + " (a member's rank among all)"
    said = said_presence(model, question)
    if said is None:
        return _read(state, ctx, model, question, None)
    said = scoped(model, said, said.members, state["schema"].get("values"))  # 西北: the rows', not the categories'
    plan, notes, why = _read(state, ctx, model, said.rest, said.counted)
    return dated(model, plan.model_copy(update={"presence": said.presence})), notes, why + " (members by the rows they have)"


def _read(state: AgentState, ctx: AgentContext, model: SemanticModel, question: str,
          counted: str | None) -> tuple[QueryPlan, list[dict], str]:
    question = fields_asked(question) if cue("list", question) else question  # "要订单号、寄到哪个城市、实付多少"
    mentions = headlined(model, read(model, question, state["schema"].get("values")), question)
    if counted and not mentions.measures:  # "最近30天没下过单的客户有多少": the customers themselves
        mentions = replace(mentions, measures=[counted])
    listed = detail(model, mentions, question)
    if listed is not None:  # a detail list: the question's words say it all, no model call
        if listed.plan is None:
            raise NoPlan(listed.reason)
        return listed.plan.model_copy(update={"window": plan_window(question)}), [], " (a detail list)"
    if ctx.nearby is not None:  # phrases no entry lists, matched by meaning (check `near_words`)
        mentions = ctx.nearby.near(model, question, mentions)
    if why := unanswerable(model, mentions, question):
        raise NoPlan(why)
    bounded = row_bounds(model, mentions, question) if thresholds(question) else None
    if bounded is not None and bounded.members is not None:  # "有多少个城市成交额超过100万": the words say it all
        counted = QueryPlan(measures=[h.dimension for h in bounded.having])  # no model call
        grounded = ground(counted, model, question, mentions=mentions)
        if grounded.plan is None:
            raise NoPlan(grounded.reason)
        return grounded.plan.model_copy(update={"window": plan_window(question)}), [], " (a count of members)"
    unparsed = ""
    try:
        filled = ctx.models.structured("strong", plan_messages(model, question), QueryPlan,
                                       json_schema=fill_schema(model),
                                       on_progress=lambda p: ctx.emit(Event(type="progress", node="plan", data=p)))
    except WenshuError as err:
        if not mentions.measures:
            raise NoPlan(f"no plan from the model: {err.en[:120]}") from err
        filled = QueryPlan(measures=mentions.measures[:3])  # the question's words alone: grounding fills the rest
        unparsed = " (the model's plan did not parse: read from the question's words)"
    grounded = ground(filled, model, question, mentions=mentions)
    if grounded.plan is None:
        raise NoPlan(grounded.reason)
    window = plan_window(question, grounded.plan.compare)
    plan = grounded.plan.model_copy(update={"window": window,
                                            "against": named_earlier(question, window, grounded.plan.compare)})
    extra = f" (dropped, not in the question: {', '.join(grounded.dropped)})" if grounded.dropped else ""
    return plan, grounded.notes + near_notes(plan, mentions), unparsed + extra


def near_notes(plan: QueryPlan, m) -> list[dict]:
    """A note per entry the plan keeps only because a phrase of the question is near it in meaning."""
    near = m.near_measures | m.near_dimensions
    lexical = {*m.measures, *m.dimensions, *m.split}
    return [{"kind": "near", "used": x, "said": near[x]} for x in [*plan.measures, *plan.dimensions]
            if x in near and x not in lexical]


def _from_previous(state: AgentState, model: SemanticModel, previous: dict, question: str) -> QueryPlan:
    if not previous.get("plan"):
        raise NoPlan("a follow-up to a free-SQL answer: free SQL edits it")
    before = QueryPlan.model_validate(previous["plan"])
    said = said_presence(model, question, kept_members(model, before) or None)  # "其中这个月还没下过单的有多少"
    rest = said.rest if said else question
    mentions = read(model, rest, state["schema"].get("values"), tuple(before.measures))
    plan = edit(before, mentions, followup_window(rest, before.window, mentions.compare), rest, model)
    if said is not None:
        return (plan or before).model_copy(update={"presence": [*before.presence, *said.presence]})
    if plan is None:
        raise NoPlan("the follow-up changes nothing the plan knows: free SQL answers it with the history")
    if plan.presence and kept_members(model, plan) != kept_members(model, before):  # other members now: not theirs
        plan = plan.model_copy(update={"presence": []})
    return plan


def edits_previous_plan(state: AgentState, ctx: AgentContext, values: list[dict] | None = None) -> bool:
    """Whether the question changes the plan of the conversation's last answer ("keep the three worst", "now do it
    per brand", "上海不算的话呢" with the value index's hit for 上海): a data follow-up, however few of the
    datasource's words it holds."""
    q = state["query"]
    previous = next((t for t in reversed(state.get("turns") or []) if t.get("sql")), None)
    model = ctx.semantic(q["datasource"]) if ctx.semantic and previous and previous.get("plan") else None
    if model is None:
        return False
    try:
        _from_previous(state | {"schema": {"values": values or []}}, model, previous, q["question"])
    except (NoPlan, ValidationError):
        return False
    return True


def _plan(state: AgentState, ctx: AgentContext) -> tuple[QueryPlan, list[dict], str, SemanticModel]:
    q = state["query"]
    given = q.get("plan")
    if not given and not ctx.settings.semantic_path:
        raise NoPlan("semantic path off")
    model = ctx.semantic(q["datasource"]) if ctx.semantic else None
    if model is None:
        raise NoPlan("no semantic model for this datasource")
    if given:
        try:
            return QueryPlan.model_validate(given), [], "given", model
        except ValidationError as err:
            raise NoPlan(f"the given plan is not a plan: {err.errors()[0]['msg']}") from err
    question = q["question"]
    previous = next((t for t in reversed(state.get("turns") or []) if t.get("sql")), None)
    if previous is not None:
        return unpinned(_from_previous(state, model, previous, question), model), [], "edited the previous plan", model
    plan, notes, extra = _from_model(state, ctx, model, question)
    return unpinned(plan, model), notes, extra, model


def plan_step(state: AgentState, ctx: AgentContext) -> tuple:
    """(update, status, detail) or, once a plan is compiled, also the ids of the checks that fired."""
    q, part = state["query"], dict(state.get("sql") or {})
    try:
        plan, notes, how, model = _plan(state, ctx)
    except NoPlan as why:
        return {}, "skipped", str(why)
    plan, finer = prefer_finer(plan, model)
    try:
        compiled = compile_plan(model, plan, state["schema"]["dialect"], q.get("lang", "zh"))
    except WenshuError as err:
        return {}, "skipped", f"the plan does not compile: {err.en}"
    part.update({"sql": compiled.sql, "attempted": True, "validation": None, "path": "plan",
                 "plan": plan.model_dump(mode="json", exclude_defaults=True), "plan_notes": notes + finer})
    what = f"rows of {plan.records}" if plan.records else ", ".join(plan.measures)
    text = "plan: " + what + (f" by {', '.join(plan.dimensions)}" if plan.dimensions else "")
    text += f"; {how}" if how in ("given", "edited the previous plan") else how
    near = [f"{n['said']} -> {n['used']}" for n in notes if n["kind"] == "near"]
    text += f" (read by meaning: {', '.join(near)})" if near else ""
    return {"sql": part}, "ok", text, ["near_words"] if near else []
