"""The accuracy-check registry: every check has an id, its feedback in the prompts folder and a switch."""

from __future__ import annotations

from importlib.resources import files

import pytest

from wenshu.agent.checks import CHECKS, Answer, UnknownCheck, run_checks
from wenshu.contracts import AgentRequest

FLAT = "SELECT SUM(pay_amount) AS gmv FROM orders WHERE status = 1"
GROUPED = "SELECT channel, SUM(pay_amount) AS gmv FROM orders WHERE status = 1 GROUP BY channel"
PER_CHANNEL = "Paid GMV for every sales channel, please"


def test_every_check_with_feedback_has_its_prompt_and_every_prompt_a_check():
    prompts = {p.name[len("check_"):-len(".md")] for p in files("wenshu.prompts").iterdir()
               if p.name.startswith("check_")}  # fmt: skip
    with_feedback = {c.id for c in CHECKS.values() if c.find is not None}
    assert prompts == with_feedback
    assert {c.stage for c in CHECKS.values()} == {"scope", "recall", "plan", "generate", "repair", "retry", "result", "coverage", "judge"}


def test_a_switched_off_check_does_not_fire():
    answer = Answer(PER_CHANNEL, "aggregate", FLAT, ["gmv"], [[10.0]], 1, "sqlite")
    feedback, fired = run_checks(answer)
    assert fired == ["per_group"] and "GROUP BY" in feedback
    assert run_checks(answer, disabled=frozenset({"per_group"})) == ("", [])
    # a result rule speaks alone and first; the coverage checks wait for a result that passes
    empty = Answer(PER_CHANNEL, "aggregate", FLAT, ["gmv"], [], 0, "sqlite")
    assert run_checks(empty)[1] == ["empty_result"]
    assert run_checks(empty, disabled=frozenset({"empty_result"}))[1] == ["per_group"]


def test_a_compiled_plan_meets_only_the_result_rules():
    answer = Answer(PER_CHANNEL, "aggregate", FLAT, ["gmv"], [[10.0]], 1, "sqlite")
    assert run_checks(answer, compiled=True) == ("", [])


def test_the_trace_names_the_check_that_fired_and_its_switch_turns_it_off(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    def agent_with(disabled):
        s = settings.model_copy(update={"disabled_checks": disabled})
        return Agent(s, store, models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))

    fake_model.queue(FLAT, GROUPED)
    resp = agent_with([]).ask(AgentRequest(message=PER_CHANNEL))
    assert resp.error is None and "GROUP BY" in resp.sql
    assert [(t.status, t.checks) for t in resp.trace if t.node == "evaluate"] == [("retry", ["per_group"]), ("ok", [])]

    fake_model.queue(FLAT)
    resp = agent_with(["per_group"]).ask(AgentRequest(message=PER_CHANNEL))
    assert resp.error is None and "GROUP BY" not in resp.sql
    assert [t.status for t in resp.trace if t.node == "evaluate"] == ["ok"]


def test_retry_switched_off_sends_a_failing_statement_to_the_graceful_last_step(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    s = settings.model_copy(update={"disabled_checks": ["retry"]})
    agent = Agent(s, store, models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))
    fake_model.queue("SELECT no_such_column FROM orders")
    resp = agent.ask(AgentRequest(message=PER_CHANNEL))
    assert resp.error is not None and [t.node for t in resp.trace if t.node == "generate"] == ["generate"]


def test_an_unknown_check_is_refused_with_the_known_ones(settings, store):
    from wenshu.agent.service import Agent

    with pytest.raises(UnknownCheck) as err:
        Agent(settings.model_copy(update={"disabled_checks": ["per_grop"]}), store)
    assert err.value.code == "unknown_check" and "per_group" in err.value.en
