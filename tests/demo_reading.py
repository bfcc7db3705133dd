"""Reading a question the way the plan step does, against the demo's bundled semantic model, for the tests of the
semantic readings: grounded into a plan (the measures the words name, else GMV, stand for the model's choice),
planned (grounded, its window resolved to dates), and a follow-up applied to an earlier plan."""

from __future__ import annotations

from wenshu.semantic.edits import edit
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan
from wenshu.semantic.windows import followup_window, plan_window

MODEL = parse_model(bundled_text("demo"))


def grounded(question: str, filled: dict | None = None) -> QueryPlan:
    """The plan for a first question; `filled`: what the plan's model chose, else the measures the words name."""
    got = ground(QueryPlan.model_validate(filled or {"measures": read(MODEL, question).measures or ["gmv"]}),
                 MODEL, question)
    assert got.plan is not None, got.reason
    return got.plan


def planned(question: str, filled: dict | None = None) -> QueryPlan:
    """`grounded`, with the window the question names resolved to dates (as the plan step does)."""
    plan = grounded(question, filled)
    return plan.model_copy(update={"window": plan_window(question, plan.compare)})


def edited(before: dict, question: str, hits: list[dict] | None = None) -> QueryPlan | None:
    """`before` changed as the follow-up `question` says (None when it says nothing the plan knows)."""
    previous = QueryPlan.model_validate(before)
    m = read(MODEL, question, hits, tuple(previous.measures))
    return edit(previous, m, followup_window(question, previous.window, m.compare), question, MODEL)
