"""The ask-data graph: intent -> recall -> plan (the semantic model's compiler) or generate (free SQL)
-> validate -> execute -> evaluate -> explain, with bounded loops back to generate and a graceful
fallback when retries are spent; a question nothing in the datasource is about stops after recall
("nodata")."""

from __future__ import annotations

from functools import partial

from langgraph.graph import END, START, StateGraph

from wenshu.agent import nodes, plan, routing
from wenshu.agent.context import AgentContext
from wenshu.agent.state import AgentState

STEPS = {
    "intent": nodes.intent_step,
    "recall": nodes.recall_step,
    "plan": plan.plan_step,
    "generate": nodes.generate_step,
    "validate": nodes.validate_step,
    "execute": nodes.execute_step,
    "evaluate": nodes.evaluate_step,
    "explain": nodes.explain_step,
    "respond": nodes.respond_step,
    "nodata": nodes.nodata_step,
    "fallback": nodes.fallback_step,
}


def build_graph(*, max_retries: int = 2, max_rounds: int = 2, checkpointer=None):
    """The plan step always runs between recall and generate: it answers when settings.semantic_path is on
    or the request brings a plan (the web UI's chips), and otherwise hands over to free SQL at once."""
    g = StateGraph(AgentState, context_schema=AgentContext)
    for name, fn in STEPS.items():
        g.add_node(name, nodes.instrument(name, fn))
    g.add_edge(START, "intent")
    g.add_conditional_edges("intent", routing.after_intent, ["recall", "respond"])
    g.add_conditional_edges("recall", routing.after_recall, ["plan", "nodata"])
    g.add_conditional_edges("plan", routing.after_plan, ["validate", "generate"])
    g.add_edge("generate", "validate")
    g.add_conditional_edges(
        "validate", partial(routing.after_validate, max_retries=max_retries), ["execute", "generate", "fallback"]
    )
    g.add_conditional_edges(
        "execute", partial(routing.after_execute, max_retries=max_retries), ["evaluate", "generate", "fallback"]
    )
    g.add_conditional_edges(
        "evaluate", partial(routing.after_evaluate, max_rounds=max_rounds), ["explain", "generate"]
    )
    for last in ("explain", "respond", "nodata", "fallback"):
        g.add_edge(last, END)
    return g.compile(checkpointer=checkpointer)
