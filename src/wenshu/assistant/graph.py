"""The assistant graph: (route by rules) -> data | wide | direct | (decide <-> act) -> finish, with pure routing functions,
MAX_STEPS and a graceful last step that answers with what the steps found."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from wenshu.agent import explain
from wenshu.agent.nodes import instrument
from wenshu.assistant.documents import NOT_FOUND, echoes
from wenshu.assistant.decide import InvalidStep, parse_call, parse_step, step_messages, step_schema, tool_specs
from wenshu.assistant.state import AssistantState
from wenshu.assistant.stream import AnswerTokens, tool_finished, tool_started
from wenshu.assistant.tools import Tool
from wenshu.assistant.wide import DataAnswers, combined_answer
from wenshu.contracts import Event
from wenshu.i18n import detect_lang, pick
from wenshu.prompts import render
from wenshu.providers.base import schema_format

MAX_REPAIRS = 1
MAX_STEP_TOKENS = 400  # a step is a short JSON object; a runaway string is cut and fails validation


@dataclass
class AssistantContext:
    models: object  # providers.base.ModelClient
    tools: list[Tool]
    reason: str = ""  # the rule that chose the route (assistant/route.py: "documents", "skill", "data", ...)
    skills: list = field(default_factory=list)
    context: str = ""  # what the datasource holds, for the system prompt
    data: DataAnswers | None = None  # the data pipeline for query_database and a wide question's sub-questions
    sub_questions: list[str] = field(default_factory=list)  # the wide route: the request's sub-questions
    act_first: bool = False  # the rules routed the request to a tool: its first step calls one (no answer yet)
    first_tool: str = ""  # the rules chose that tool too (the documents): the first step only writes its arguments
    ask_here: Callable[[str], object] | None = None  # the data route: the pipeline in this conversation, streamed
    max_steps: int = 6
    thinking_tokens: int = 0  # an endpoint's native step may think this much more (a reasoning model)
    warnings: list = field(default_factory=list)  # WenshuErrors the host met preparing the turn (an MCP server left out)
    passages: list = field(default_factory=list)  # what search_documents returned this turn, for the citations
    request_last: bool = True  # once passages came back, the request is said again after them (assistant_request_last)
    judge_found: bool = False  # once passages came back, a final answer says whether one answers (setting kb_judge_found)
    embedder: object = None  # the citations' closeness of answer and passage (assistant/documents.py)
    history: str = ""  # the conversation's earlier turns, for the step prompt (assistant/memory.py)
    on_event: Callable[[Event], None] | None = None  # steps and tokens as they happen (assistant/stream.py)
    called: list[dict] = field(default_factory=list)  # the tool steps taken, also when stopped (assistant/audit.py)

    def emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)


def direct_node(state: AssistantState, runtime: Runtime[AssistantContext]) -> dict:
    return {"answer": explain.chitchat_reply(state["lang"], "chitchat"), "status": "ok"}


def data_node(state: AssistantState, runtime: Runtime[AssistantContext]) -> dict:
    resp = runtime.context.ask_here(state["request"])
    return {"answer": resp.answer, "status": "error" if resp.error else "ok", "data": resp.model_dump()}


def wide_node(state: AssistantState, runtime: Runtime[AssistantContext]) -> dict:
    """A data question too wide for one query: each sub-question through the pipeline, the answers combined."""
    parts = runtime.context.data.each(runtime.context.sub_questions)
    ok = any(p.response.error is None for p in parts)
    return {"answer": combined_answer(parts, state["lang"]), "status": "ok" if ok else "error"}


def choose_step(ctx: AssistantContext, request: str, steps: list[dict], repair: str | None = None) -> dict:
    """One model step: {action, arguments, answer} or {invalid: reason}. The embedded model decodes it as
    JSON under this turn's schema; an endpoint model with native tool calling calls a tool or answers in
    text. Either way a final answer's text streams out as `token` events while the model writes it, and a
    reasoning model's thinking as `thinking` events (never part of the step). When the rules sent the
    request to a tool (`act_first`), its first step has no final answer to choose; when they chose the tool
    as well (`first_tool`: the documents), that tool is the first step's only option."""
    native, final = ctx.models.native_tools, not (ctx.act_first and not steps)
    offered = [t for t in ctx.tools if t.name == ctx.first_tool] if ctx.first_tool and not steps else []
    offered, final = (offered, False) if offered else (ctx.tools, final)
    judged = ctx.judge_found and bool(ctx.passages) and not native and final
    messages = step_messages(request, ctx.tools, ctx.skills, ctx.context, steps, repair=repair, history=ctx.history,
                             native=native, language=detect_lang(request) if ctx.passages else None,
                             judged=judged, again_last=ctx.request_last)  # fmt: skip
    emit = (lambda text: ctx.emit(Event(type="token", data=text))) if ctx.on_event else None
    think = (lambda text: ctx.emit(Event(type="thinking", data=text))) if ctx.on_event else None
    try:
        if native:
            msg = ctx.models.reply("strong", messages, tools=tool_specs(offered),
                                   max_tokens=MAX_STEP_TOKENS + ctx.thinking_tokens,
                                   tool_choice=None if final else "required", on_token=emit,
                                   on_thinking=think)  # fmt: skip
            d = parse_call(msg, offered, final=final)
        else:
            tokens = AnswerTokens(emit) if emit else None
            schema = schema_format("Step", step_schema(offered, final=final, judged=judged))
            raw = ctx.models.text("strong", messages, response_format=schema, max_tokens=MAX_STEP_TOKENS,
                                  on_token=tokens.feed if tokens else None, on_thinking=think)  # fmt: skip
            d = parse_step(raw, offered, final=final)
    except InvalidStep as err:
        return {"invalid": str(err)}
    if d.action == "final" and d.found is False:  # the model says no passage answers: the host says so, cites none
        return {"action": "final", "arguments": {}, "answer": NOT_FOUND}
    if d.action == "final" and repair is None and echoes(d.answer, request, ctx.passages):
        return {"invalid": render("assistant_echo").strip()}  # once: a repaired answer is taken as it is
    return {"action": d.action, "arguments": d.arguments, "answer": d.answer}


def decide_step(state: AssistantState, ctx: AssistantContext) -> tuple[dict, str, str]:
    """(update, outcome, detail) for `agent.nodes.instrument`: the `decide` step is streamed like a pipeline node."""
    previous = state.get("decision") or {}
    decision = choose_step(ctx, state["request"], state.get("steps") or [], previous.get("invalid"))
    update = {"decision": decision, "repairs": state.get("repairs", 0) + bool(previous.get("invalid"))}
    if decision.get("invalid"):
        return update, "retry", decision["invalid"]
    return update, "ok", decision["action"]


def act_node(state: AssistantState, runtime: Runtime[AssistantContext]) -> dict:
    d, ctx = state["decision"], runtime.context
    tool = next(t for t in ctx.tools if t.name == d["action"])
    ctx.emit(tool_started(tool.name, d["arguments"]))
    t0 = time.perf_counter()
    result, ok = tool.call(d["arguments"])
    ms = round((time.perf_counter() - t0) * 1000, 1)
    ctx.emit(tool_finished(tool.name, result, ok, ms))
    step = {"action": d["action"], "arguments": d["arguments"], "result": result, "ok": ok, "ms": ms}
    ctx.called.append(step)
    return {"steps": [step]}


def finish_node(state: AssistantState, runtime: Runtime[AssistantContext]) -> dict:
    """The final answer, or the graceful last step: what the steps found, said plainly."""
    d = state.get("decision") or {}
    if d.get("action") == "final":
        return {"answer": d["answer"], "status": "ok"}
    steps = state.get("steps") or []
    lang = state["lang"]
    why = pick(lang, f"I stopped after {len(steps)} steps without a final answer.",
               f"执行了 {len(steps)} 步仍未得出最终答案，先停在这里。")  # fmt: skip
    if d.get("invalid"):
        why = pick(lang, f"The model's step could not be used ({d['invalid']}).", f"模型给出的步骤无法使用（{d['invalid']}）。")
    found = "\n".join(f"- {s['action']}: {s['result'][:300]}" for s in steps[-3:])
    head = pick(lang, " What the steps found:", " 已得到的结果：") if found else ""
    return {"answer": why + head + ("\n" + found if found else ""), "status": "fallback"}


def after_route(state: AssistantState) -> str:
    return {"direct": "direct", "data": "data", "wide": "wide"}.get(state.get("route", ""), "decide")


def after_decide(state: AssistantState) -> str:
    d = state.get("decision") or {}
    if d.get("invalid"):
        return "decide" if state.get("repairs", 0) < MAX_REPAIRS else "finish"
    return "finish" if d.get("action") == "final" else "act"


def after_act(state: AssistantState, *, max_steps: int) -> str:
    return "finish" if len(state.get("steps") or []) >= max_steps else "decide"


def build_assistant_graph(max_steps: int):
    g = StateGraph(AssistantState, context_schema=AssistantContext)
    for name, fn in (("direct", direct_node), ("data", data_node), ("wide", wide_node),
                     ("decide", instrument("decide", decide_step)), ("act", act_node), ("finish", finish_node)):
        g.add_node(name, fn, input_schema=AssistantState)  # `instrument` is typed for the pipeline's state
    g.add_conditional_edges(START, after_route, ["direct", "data", "wide", "decide"])  # the route is decided by rules
    g.add_conditional_edges("decide", after_decide, ["decide", "act", "finish"])
    g.add_conditional_edges("act", lambda s: after_act(s, max_steps=max_steps), ["decide", "finish"])
    for last in ("direct", "data", "wide", "finish"):
        g.add_edge(last, END)
    return g.compile()
