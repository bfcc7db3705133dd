"""Join conditions no key links (a guessed relation between two tables), and the plain reading they
ask for: kept only when it answers through keyed joins. Real SQLite catalogs, scripted model."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.agent.plain_reading import second_reading
from wenshu.contracts import AgentRequest
from wenshu.knowledge.introspect import load_catalog
from wenshu.settings import OFF_BY_DEFAULT, Settings
from wenshu.sql.join_keys import unkeyed_conditions


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    db = tmp_path_factory.mktemp("keys") / "kennel.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE vets (vet_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE dogs (dog_id INTEGER PRIMARY KEY, name TEXT, owner_id INT REFERENCES owners(owner_id));
            INSERT INTO owners VALUES (1, 'Oslo');
            INSERT INTO vets VALUES (1, 'Rome');
            INSERT INTO dogs VALUES (1, 'Rex', 1);
        """)
    return load_catalog("kennel", f"sqlite:///{db}")


@pytest.mark.parametrize("sql, unkeyed", [
    ("SELECT v.city FROM vets v JOIN owners o ON v.vet_id = o.owner_id", ["v.vet_id = o.owner_id"]),  # two own ids
    ("SELECT d.name FROM dogs d JOIN owners o ON d.dog_id = d.dog_id", ["d.dog_id = d.dog_id"]),  # itself
    ("SELECT d.name FROM dogs d JOIN owners o ON d.dog_id = o.owner_id", ["d.dog_id = o.owner_id"]),
    ("SELECT d.name FROM dogs d JOIN owners o ON o.owner_id = d.owner_id", []),  # the declared key, either way round
    ("SELECT v.vet_id FROM vets v JOIN owners o ON v.city = o.city", []),  # the same name: a key nobody declared
    ("SELECT name FROM dogs WHERE owner_id IN (SELECT v.vet_id FROM vets v JOIN owners o ON v.vet_id = o.owner_id)",
     ["v.vet_id = o.owner_id"]),  # in a subquery too
    ("SELECT name FROM dogs", []),
    ("SELECT nonsense FROM (", []),
])
def test_a_join_on_columns_no_key_links_is_found(catalog, sql, unkeyed):
    assert unkeyed_conditions(sql, catalog, "sqlite") == unkeyed


def test_the_plain_sql_replaces_a_first_that_ran_only_when_it_fits():
    rows = {"A": "x", "B": "y"}.get
    assert second_reading("A", rows, lambda: "B", True, accept=lambda s: True)[0] == "B"
    sql, note = second_reading("A", rows, lambda: "B", True, accept=lambda s: False)
    assert sql == "A" and note["plain_ran"] is False
    assert second_reading("Z", rows, lambda: "B", False, accept=lambda s: False)[0] == "B"  # the first did not run


GUESSED = ("SELECT o.channel, COUNT(*) AS n FROM orders o JOIN cities c ON o.order_id = c.city_id "
           "JOIN regions r ON c.region_id = r.region_id WHERE r.region_name = '华东' GROUP BY o.channel")
KEYED = ("SELECT o.channel, COUNT(*) AS n FROM orders o JOIN cities c ON o.city_id = c.city_id "
         "JOIN regions r ON c.region_id = r.region_id WHERE r.region_name = '华东' GROUP BY o.channel")
QUESTION = "各渠道有多少条订单记录"


@pytest.fixture
def agent_with(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    def make(*off: str):  # the defaults with unkeyed_join switched on (off by default: no gain on Spider-DK)
        on = [c for c in OFF_BY_DEFAULT if c != "unkeyed_join"]
        s = settings.model_copy(update={"disabled_checks": [*on, *off], "semantic_path": False})
        return Agent(s, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))

    return make


def generate_checks(resp) -> list[str]:
    return [c for t in resp.trace if t.node == "generate" for c in (t.checks or [])]


def test_a_guessed_join_that_runs_asks_the_plain_reading_which_answers(agent_with, fake_model):
    fake_model.queue(GUESSED, KEYED)
    resp = agent_with().ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(KEYED) and resp.usage.llm_calls == 2
    assert generate_checks(resp) == ["unkeyed_join"]
    assert "CREATE TABLE orders" in fake_model.calls[1][0].content  # the plain prompt


def test_a_plain_reading_that_guesses_too_or_a_switched_off_check_keeps_the_first(agent_with, fake_model):
    fake_model.queue(GUESSED, GUESSED.replace("COUNT(*)", "COUNT(o.order_id)"))
    resp = agent_with().ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.sql.startswith(GUESSED) and resp.usage.llm_calls == 2
    fake_model.responses.clear()
    fake_model.queue(GUESSED)
    resp = agent_with("unkeyed_join").ask(AgentRequest(message=QUESTION))
    assert resp.sql.startswith(GUESSED) and resp.usage.llm_calls == 1 and not generate_checks(resp)


def test_off_by_default(settings, store, fake_model):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    assert "unkeyed_join" in Settings.model_fields["disabled_checks"].default_factory()
    agent = Agent(settings.model_copy(update={"disabled_checks": list(OFF_BY_DEFAULT), "semantic_path": False}), store,
                  models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    fake_model.queue(GUESSED)
    resp = agent.ask(AgentRequest(message=QUESTION))
    assert resp.sql.startswith(GUESSED) and resp.usage.llm_calls == 1


def test_keyed_joins_are_never_read_again(agent_with, fake_model):
    fake_model.queue(KEYED)
    resp = agent_with().ask(AgentRequest(message=QUESTION))
    assert resp.error is None and resp.usage.llm_calls == 1 and not generate_checks(resp)
