"""Graph nodes: thin wrappers over the pure step functions. Each returns an update of its own part.

`instrument` adds timing, the trace entry and the node started/finished events around every node.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from wenshu.agent import evaluate as ev
from wenshu.agent import explain as ex
from wenshu.agent.checked_run import CheckedRun
from wenshu.agent.context import AgentContext
from wenshu.agent.checks import Answer, run_checks
from wenshu.agent.generate import GenerateInput, Turn, build_messages
from wenshu.agent.plain_reading import guessed_join, reread
from wenshu.agent.intent import IntentAnswer, IntentResult, classify_rules, from_model, names_a_value, query_type_of
from wenshu.agent.plan import edits_previous_plan
from wenshu.agent.plan_reply import planned_answer
from wenshu.prompts import render
from wenshu.agent.state import AgentState
from wenshu.agent.scope import judge
from wenshu.agent.vote import choose, make_runner
from wenshu.contracts import Event
from wenshu.errors import WenshuError
from wenshu.knowledge.time_phrases import catalog_windows
from wenshu.sql.charts import choose_chart
from wenshu.sql.extract import extract_sql

# (update, status, detail) or (update, status, detail, ids of the accuracy checks that fired)
NodeFn = Callable[[AgentState, AgentContext], tuple]


def instrument(name: str, fn: NodeFn):
    def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
        ctx = runtime.context
        ctx.emit(Event(type="node", node=name, status="started"))
        t0 = time.perf_counter()
        update, status, detail, *fired = fn(state, ctx)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        ctx.emit(Event(type="node", node=name, status=status, ms=ms, data=detail))
        step = {"node": name, "status": status, "ms": ms, "detail": detail}
        if fired and fired[0]:
            step["checks"] = list(fired[0])
        return {**update, "trace": [step]}

    node.__name__ = name
    return node


def intent_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    q = state["query"]
    has_history = bool(state.get("turns"))
    catalog = ctx.catalog(q["datasource"])
    if q.get("plan"):  # a plan given with the request (the UI's chips): a data question, no model call
        result = IntentResult(intent="data", query_type=query_type_of(q["question"]))
    else:
        result = classify_rules(q["question"], has_history=has_history, vocabulary=ctx.vocabulary(q["datasource"]))
    if result is None and has_history:  # "keep the three worst", "上海不算的话呢": edits the last answer
        named = ctx.recall.named_values(q["question"], catalog)
        if edits_previous_plan(state, ctx, named) or names_a_value(q["question"], named):
            result = IntentResult(intent="data", query_type=query_type_of(q["question"]), followup=True)
    if result is None:
        prompt = render("intent", tables=", ".join(catalog.table_names()), question=q["question"])
        result = from_model(ctx.models.structured("fast", [HumanMessage(prompt)], IntentAnswer))
    query = {**q, "intent": result.intent, "query_type": result.query_type, "followup": result.followup,
             "intent_source": result.source}
    return {"query": query}, "ok", f"{result.intent}/{result.query_type} ({result.source})"


def recall_step(state: AgentState, ctx: AgentContext) -> tuple:
    q = state["query"]
    catalog = ctx.catalog(q["datasource"])
    previous = next((t.get("sql") for t in reversed(state.get("turns") or []) if t.get("sql")), None)
    got = ctx.recall.recall(q["question"], catalog, previous_sql=previous)
    schema = {"dialect": catalog.dialect, "block": got.schema_block, "tables": [t["name"] for t in got.tables],
              "examples": got.examples, "tokens": got.tokens, "values": getattr(got, "values", []),
              "glossary": getattr(got, "glossary", []), "whole": getattr(got, "whole", False)}
    detail = f"{len(got.tables)} tables, ~{got.tokens} tokens"
    if not state.get("turns") and "off_topic" not in ctx.disabled_checks and not q.get("plan"):
        away = judge(q["question"], got, ctx.vocabulary(q["datasource"]), floor=ctx.settings.scope_min_similarity,
                     catalog=catalog, semantic=ctx.semantic(q["datasource"]) if ctx.semantic else None)
        if away is not None:
            schema["off_topic"] = {"words": away.words, "closest": away.closest}
            return {"schema": schema}, "ok", f"{detail}; nothing here is about {', '.join(away.words)}", ["off_topic"]
    linked = (getattr(got, "signals", None) or {}).get("crosslingual")
    if linked:
        return {"schema": schema}, "ok", f"{detail}; {linked} values linked across languages", ["crosslingual_values"]
    return {"schema": schema}, "ok", detail


def _retry_reason(state: AgentState) -> tuple[str | None, str | None]:
    """Why generate runs again: ("validate"|"execute"|"evaluate", reason) or (None, None) the first time."""
    part, result = state.get("sql") or {}, state.get("result") or {}
    if not part.get("attempted"):
        return None, None
    validation = part.get("validation") or {}
    if not validation.get("passed"):
        return "validate", validation.get("hint_for_model") or validation.get("reason") or "not valid SQL"
    if result.get("error"):
        return "execute", result["error"]
    return "evaluate", (result.get("verdict") or {}).get("feedback")


def generate_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str, list[str]]:
    q, schema, part = state["query"], state["schema"], dict(state.get("sql") or {})
    stage, reason = _retry_reason(state)
    if stage in ("validate", "execute"):
        part["retries"] = part.get("retries", 0) + 1
    elif stage == "evaluate":
        part["eval_rounds"] = part.get("eval_rounds", 0) + 1
        # Keep the answer that ran: if the new attempt never runs, the fallback step answers with it.
        part["kept"] = {"sql": part.get("sql"), "result": state.get("result"),
                        **{k: part[k] for k in ("path", "plan", "plan_notes") if k in part}}
    if stage:
        part["attempts"] = [*part.get("attempts", []), {"sql": part.get("sql"), "stage": stage, "reason": reason}]
    turns = [Turn(t["question"], t.get("sql"), t.get("summary")) for t in (state.get("turns") or [])]
    inp = GenerateInput(
        question=q["question"], dialect=schema["dialect"], schema_block=schema["block"], today=q["today"],
        row_limit=ctx.settings.row_limit, examples=schema.get("examples") or [],
        history=turns[-ctx.settings.history_turns:], previous_sql=part.get("sql") if stage else None,
        feedback=reason if stage else None,
        values=schema.get("values") or [], glossary=schema.get("glossary") or [],
        time_windows=catalog_windows(q["question"], ctx.catalog(q["datasource"])),
        prefix_cache=q["datasource"] if schema.get("whole") else None,
    )
    # A retry samples a little, so the model does not repeat the rejected SQL word for word.
    kw = {"temperature": 0.3, "seed": 42 + part.get("retries", 0) + part.get("eval_rounds", 0)} if stage else {}
    text = ctx.models.text("strong", build_messages(inp), on_token=lambda t: ctx.emit(Event(type="token", data=t)),
                           on_progress=lambda p: ctx.emit(Event(type="progress", node="generate", data=p)), **kw)
    sql = extract_sql(text)
    detail = f"after {stage}: {reason}" if stage else ""
    fired: list[str] = []
    if sql and not stage and ctx.settings.sql_candidates > 1:
        sql, note = _vote(sql, inp, q, ctx)
        part["vote"] = note
        detail = f"vote: {note}"
    elif sql and not stage and not turns and not inp.time_windows:
        sql, note, fired = _plain(sql, inp, schema, q, ctx)
        if note:
            part["plain_reading"], detail = note, f"plain reading: {note}"
    part.update({"sql": sql, "raw": text[:2000], "validation": None, "attempted": True, "path": "sql"})
    for key in ("plan", "plan_notes"):  # the model wrote this SQL: the plan no longer describes it
        part.pop(key, None)
    if sql:
        ctx.emit(Event(type="sql", data=sql))
    if not sql:
        detail = (detail + "; " if detail else "") + "no SQL in the model's answer"
    return {"sql": part}, "retry" if stage else "ok", detail, ["retry"] if stage in ("validate", "execute") else fired


def _plain(sql: str, inp: GenerateInput, schema: dict, q: dict, ctx: AgentContext) -> tuple[str, dict | None, list]:
    off = ctx.disabled_checks
    prefer = "plain_preferred" not in off and not inp.glossary  # a glossary term: only the first prompt knows it
    guessed = "unkeyed_join" not in off and not inp.glossary and guessed_join(sql, ctx.catalog(q["datasource"]))
    if "plain_reading" in off and not prefer and not guessed:
        return sql, None, []
    chosen, note = reread(sql, schema, q, ctx, prefer or guessed, keyed=guessed and not prefer)
    ran = "plain_preferred" if prefer else "unkeyed_join"
    return chosen, note, ([] if note is None else [ran if note["first_ran"] else "plain_reading"])


def _vote(first: str, inp: GenerateInput, q: dict, ctx: AgentContext) -> tuple[str, dict]:
    messages = build_messages(inp)

    def sample(i: int) -> str | None:
        return extract_sql(ctx.models.text("strong", messages, temperature=0.7, seed=1000 + i))

    return choose(first, sample, make_runner(CheckedRun.for_agent(ctx, q["datasource"])), ctx.settings.sql_candidates)


def validate_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str, list[str]]:
    part = dict(state["sql"])
    if not part.get("sql"):
        part["validation"] = {"passed": False, "layer": 1, "code": "sql_not_found",
                              "reason": "The model's answer contained no SQL statement.",
                              "hint_for_model": "Answer with one SQL SELECT statement only, no prose.",
                              "sql": ""}
        return {"sql": part}, "error", part["validation"]["reason"]
    off = ctx.disabled_checks
    checked = CheckedRun.for_agent(ctx, state["query"]["datasource"]).check(
        part["sql"], repair="schema_repair" not in off, question=state["query"]["question"],
        drop_joins="unused_join" not in off, once="repeated_rows" not in off and part.get("path") != "plan")
    if checked.repairs:
        part.update(repairs=[*part.get("repairs", []), *checked.repairs])
    part["validation"] = checked.outcome.to_dict()
    if checked.passed:
        part["sql"] = checked.sql
        ctx.emit(Event(type="sql", data=checked.sql))  # the statement that will run (e.g. with its LIMIT)
        if checked.repairs:
            return {"sql": part}, "ok", "repaired: " + "; ".join(checked.repairs), checked.fired
        return {"sql": part}, "ok", ""
    part["sql"] = checked.sql
    return {"sql": part}, "error", f"{checked.outcome.code}: {checked.outcome.reason}", checked.fired


def execute_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    try:
        res = CheckedRun.for_agent(ctx, state["query"]["datasource"]).execute(state["sql"]["sql"])
    except WenshuError as err:
        return {"result": {"error": err.en, "columns": [], "rows": [], "row_count": 0}}, "error", err.en
    result = {"columns": res.columns, "rows": res.rows, "row_count": res.row_count, "truncated": res.truncated,
              "cached": res.cached, "error": None}
    ctx.emit(Event(type="result", data={"row_count": res.row_count, "cached": res.cached}))
    if res.cached:
        return {"result": result}, "cached", f"{res.row_count} rows (cache)"
    return {"result": result}, "ok", f"{res.row_count} rows"


def evaluate_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str, list[str]]:
    q, r, part = state["query"], dict(state["result"]), state["sql"]
    compiled = part.get("path") == "plan"
    schema, turns = state.get("schema") or {}, state.get("turns") or []
    dialect = schema.get("dialect", "")
    previous = next((t.get("sql") for t in reversed(turns) if t.get("sql")), None)
    answer = Answer(
        # a plan says what it answers (a plan for "比前一周" is a comparison, not a top-N)
        question=q["question"], query_type=ev.plan_query_type(part["plan"]) if compiled else q["query_type"],
        sql=part["sql"], columns=r["columns"], rows=r["rows"], row_count=r["row_count"], dialect=dialect,
        values=schema.get("values") or [], windows=catalog_windows(q["question"], ctx.catalog(q["datasource"])),
        examples=schema.get("examples") or [], glossary=schema.get("glossary") or [],
        context=[t.get("question", "") + " " + (t.get("sql") or "") for t in turns], previous_sql=previous,
        catalog=ctx.catalog(q["datasource"]) if previous else None,
    )
    disabled = ctx.disabled_checks
    if compiled and part["plan"].get("records"):  # a list of the rows its filters name: none is an answer
        disabled = disabled | {"empty_result"}
    feedback, fired = run_checks(answer, disabled=disabled, compiled=compiled)
    verdict = ev.Verdict(ok=not fired, feedback=feedback, checks=fired)
    if verdict.ok and ctx.settings.evaluate_with_model and "model_judge" not in disabled:
        prompt = ev.judge_prompt(q["question"], part["sql"], r["columns"], r["rows"])
        judged = ctx.models.structured("fast", [HumanMessage(prompt)], ev.Verdict)
        verdict = ev.Verdict(ok=judged.ok, feedback=judged.feedback, checks=[] if judged.ok else ["model_judge"])
    r["verdict"] = verdict.model_dump()
    return {"result": r}, "ok" if verdict.ok else "retry", verdict.feedback, verdict.checks


def explain_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    update = _explained(state["query"], state["sql"]["sql"], state["result"], ctx, state["sql"])
    return update, "ok", ""


def _explained(q: dict, sql: str, r: dict, ctx: AgentContext, part: dict | None = None) -> dict:
    """The answer, chart and conversation turn; from the plan when the plan path answered."""
    model = ctx.semantic(q["datasource"]) if ctx.semantic and (part or {}).get("path") == "plan" else None
    planned = planned_answer(model, part or {}, q, r)
    if planned:
        answer, chart = planned["answer"], planned["chart"]
    else:
        answer = ex.summarize(q["lang"], q["query_type"], r["columns"], r["rows"], r["row_count"], r.get("truncated", False))
        chart = choose_chart(r["columns"], r["rows"], q["query_type"], title=q["question"][:60])
    turn = {"question": q["question"], "sql": sql, "plan": planned["plan"]["plan"] if planned else None,
            "summary": ex.result_summary(r["columns"], r["rows"], r["row_count"])}
    ctx.emit(Event(type="answer", data=answer))
    meta = {"answer": answer, "chart": chart, "status": "ok", "plan": planned["plan"] if planned else None}
    return {"meta": meta, "turns": [turn]}


def nodata_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    """The question is about something this database does not hold: say so, with its closest tables."""
    q, away = state["query"], state["schema"]["off_topic"]
    answer = ex.nodata_reply(q["lang"], away["words"], away["closest"])
    ctx.emit(Event(type="answer", data=answer))
    error = {"code": "no_matching_data", "message": answer}
    return {"meta": {"answer": answer, "chart": None, "status": "fallback", "error": error},
            "turns": [{"question": q["question"], "sql": None, "summary": None}]}, "ok", ", ".join(away["words"])


def respond_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    q = state["query"]
    answer = ex.chitchat_reply(q["lang"], q["intent"])
    ctx.emit(Event(type="answer", data=answer))
    return {"meta": {"answer": answer, "chart": None, "status": "ok"},
            "turns": [{"question": q["question"], "sql": None, "summary": None}]}, "ok", q["intent"]


def fallback_step(state: AgentState, ctx: AgentContext) -> tuple[dict, str, str]:
    """The graceful last step: the last answer that ran if there is one, else an apology that says
    what was tried."""
    q, part = state["query"], state.get("sql") or {}
    kept = part.get("kept")
    if kept and kept.get("sql") and kept.get("result"):
        ctx.emit(Event(type="sql", data=kept["sql"]))
        restored = {**part, **{k: v for k, v in kept.items() if k != "result"}}  # its path and plan come back too
        update = _explained(q, kept["sql"], kept["result"], ctx, restored)
        return {**update, "sql": restored, "result": kept["result"]}, "ok", "kept the last answer that ran"
    tried = [f"{a['stage']}: {a['reason']}" for a in part.get("attempts", []) if a.get("reason")]
    last = part.get("validation") or {}
    if last and not last.get("passed"):
        tried.append(f"validate: {last.get('reason')}")
    elif (state.get("result") or {}).get("error"):
        tried.append(f"execute: {state['result']['error']}")
    answer = ex.fallback_reply(q["lang"], tried)
    ctx.emit(Event(type="answer", data=answer))
    error = {"code": "unanswerable", "message": answer}
    return {"meta": {"answer": answer, "chart": None, "status": "fallback", "error": error}}, "error", "; ".join(tried)
