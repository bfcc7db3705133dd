"""The plain reading: a first SQL that cannot answer gets one second opinion from a plain prompt.
Scripted model, real demo database."""

from __future__ import annotations

import pytest

from wenshu.agent.plain_reading import plain_schema, second_reading
from wenshu.contracts import AgentRequest
from wenshu.settings import OFF_BY_DEFAULT, Settings

BY_CHANNEL = "SELECT channel, COUNT(*) AS n FROM orders GROUP BY channel"
NO_ROWS = "SELECT channel, COUNT(*) AS n FROM orders WHERE order_id < 0 GROUP BY channel"
QUESTION = "各渠道有多少条订单记录"
EAST_BY_CHANNEL = ("SELECT o.channel, COUNT(*) AS n FROM orders o JOIN cities c ON o.city_id = c.city_id "
                   "JOIN regions r ON c.region_id = r.region_id WHERE r.region_name = '华东' GROUP BY o.channel")


@pytest.fixture
def reading_agent(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    # the defaults (plain_reading on); free SQL answers: the plan path is off
    return Agent(settings.model_copy(update={"disabled_checks": list(OFF_BY_DEFAULT), "semantic_path": False}), store,
                 models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


def generate_steps(resp):
    return [t for t in resp.trace if t.node == "generate"]


def test_second_reading_keeps_the_first_sql_that_runs_and_asks_only_when_it_cannot():
    asked = []

    def write():
        asked.append(1)
        return "B"

    assert second_reading("A", {"A": "rows"}.get, write) == ("A", None) and not asked
    sql, note = second_reading("A", {"B": "rows"}.get, write)
    assert sql == "B" and note == {"first_ran": False, "plain_ran": True, "agree": False, "chosen": "plain"}
    sql, note = second_reading("A", {}.get, write)
    assert sql == "A" and note["chosen"] == "first"  # neither runs: the first goes on to its retry
    assert second_reading("A", {}.get, lambda: "A")[1]["plain_ran"] is False  # the same SQL is no second opinion


def test_preferred_the_plain_reading_is_asked_always_and_wins_a_disagreement():
    assert second_reading("A", {"A": "x", "B": "y"}.get, lambda: "B", prefer_plain=True) == (
        "B", {"first_ran": True, "plain_ran": True, "agree": False, "chosen": "plain"})
    assert second_reading("A", {"A": "x", "B": "x"}.get, lambda: "B", prefer_plain=True)[0] == "A"  # agree: first
    assert second_reading("A", {"A": "x"}.get, lambda: "B", prefer_plain=True)[0] == "A"  # plain cannot run


def test_an_empty_first_answer_is_replaced_by_the_plain_reading(reading_agent, fake_model):
    fake_model.queue(NO_ROWS, BY_CHANNEL)
    resp = reading_agent.ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL) and resp.row_count == 3
    assert resp.usage.llm_calls == 2
    [step] = generate_steps(resp)
    assert step.checks == ["plain_reading"] and "'chosen': 'plain'" in step.detail
    system, user = fake_model.calls[1]
    assert "CREATE TABLE orders" in system.content and "e.g." not in system.content  # bare DDL, no samples
    assert "Rules:" not in system.content and user.content.endswith(QUESTION)


def test_a_first_answer_with_rows_is_never_read_again(reading_agent, fake_model):
    fake_model.queue(BY_CHANNEL)
    resp = reading_agent.ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.usage.llm_calls == 1
    assert not generate_steps(resp)[0].checks


def test_when_neither_runs_the_first_goes_on_to_its_retry(reading_agent, fake_model):
    fake_model.queue("DELETE FROM orders", "DROP TABLE orders", BY_CHANNEL)
    resp = reading_agent.ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL)
    first, retry = generate_steps(resp)
    assert "'chosen': 'first'" in first.detail and retry.status == "retry"
    assert "DELETE FROM orders" in fake_model.calls[2][-1].content  # the retry is told what was refused


def test_on_by_default_off_by_its_switch_and_never_on_a_follow_up(settings, store, reading_agent, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    assert "plain_reading" not in Settings.model_fields["disabled_checks"].default_factory()  # the product's default
    off = [*OFF_BY_DEFAULT, "plain_reading"]
    switched_off = Agent(settings.model_copy(update={"disabled_checks": off, "semantic_path": False}),
                         store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    fake_model.queue(NO_ROWS, BY_CHANNEL)
    resp = switched_off.ask(AgentRequest(message=QUESTION))
    assert "plain_reading" not in (generate_steps(resp)[0].checks or [])
    fake_model.responses.clear()
    fake_model.queue(BY_CHANNEL)
    first = reading_agent.ask(AgentRequest(message=QUESTION))
    fake_model.queue(NO_ROWS, BY_CHANNEL)
    resp = reading_agent.ask(AgentRequest(message="只看线上渠道呢", conversation_id=first.conversation_id))
    assert all("plain_reading" not in (s.checks or []) for s in generate_steps(resp))


def test_not_asked_when_the_question_has_a_relative_time_window(reading_agent, fake_model):
    fake_model.queue(NO_ROWS)
    fake_model.default = BY_CHANNEL  # the retries that the missing window asks for
    reading_agent.ask(AgentRequest(message="上个月各渠道有多少条订单记录"))
    assert len(fake_model.calls) > 1 and all("CREATE TABLE orders" not in str(c[0].content) for c in fake_model.calls)


def test_plain_schema_lists_only_the_tables_asked_for(store, settings):
    catalog = store.catalogs.load(settings.default_datasource)
    text = plain_schema(catalog, ["orders"])
    assert text.startswith("CREATE TABLE orders") and text.count("CREATE TABLE") == 1
    assert plain_schema(catalog).count("CREATE TABLE") == len(catalog.tables) > 1


def test_a_plain_reading_the_model_fails_on_leaves_the_first_sql_to_its_retry(reading_agent, fake_model):
    from wenshu.providers.fake import ScriptExhausted

    fake_model.queue(NO_ROWS, ScriptExhausted("timed out"), BY_CHANNEL)
    resp = reading_agent.ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL)
    assert "'plain_ran': False" in generate_steps(resp)[0].detail


@pytest.fixture
def preferring_agent(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    off = [c for c in OFF_BY_DEFAULT if c not in ("plain_reading", "plain_preferred")]
    return Agent(settings.model_copy(update={"disabled_checks": off, "semantic_path": False}), store,
                 models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))


PAID_BY_CHANNEL = "SELECT channel, COUNT(*) AS n FROM orders WHERE status = 1 GROUP BY channel"


def test_preferred_a_plain_reading_that_disagrees_answers(preferring_agent, fake_model):
    fake_model.queue(PAID_BY_CHANNEL, BY_CHANNEL)
    resp = preferring_agent.ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(BY_CHANNEL) and resp.usage.llm_calls == 2
    [step] = generate_steps(resp)
    assert step.checks == ["plain_preferred"] and "'chosen': 'plain'" in step.detail


def test_preferred_not_over_a_glossary_term_the_plain_prompt_never_sees(preferring_agent, fake_model):
    fake_model.queue(PAID_BY_CHANNEL)
    resp = preferring_agent.ask(AgentRequest(message="各渠道的已支付订单有多少"))
    assert "orders.status = 1" in str(fake_model.calls[0][-1].content)  # the term reached the first prompt
    assert resp.error is None and resp.sql.startswith(PAID_BY_CHANNEL) and resp.usage.llm_calls == 1


def test_the_plain_prompt_shows_the_named_values_only_when_asked(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    question = "华东大区各渠道有多少条订单记录"
    for disabled, shown in ((list(OFF_BY_DEFAULT), False),
                            ([c for c in OFF_BY_DEFAULT if c != "plain_values"], True)):
        fake_model.calls.clear()
        agent = Agent(settings.model_copy(update={"disabled_checks": disabled, "semantic_path": False}), store,
                      models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
        fake_model.queue(NO_ROWS, EAST_BY_CHANNEL)
        assert agent.ask(AgentRequest(message=question)).error is None
        first, plain = fake_model.calls[0][-1].content, fake_model.calls[1][-1].content
        assert "= '华东'" in first  # the generation prompt always shows it
        assert ("= '华东'" in plain) is shown and plain.endswith(question)
