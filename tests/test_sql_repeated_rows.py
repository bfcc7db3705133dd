"""Rows a join only repeats: a plain list becomes SELECT DISTINCT, an average or total over the join
becomes a semi-join; rankings, groups, counts, selected columns of the joined table, lookups on its
key and outer joins are left alone. Real SQLite catalog and rows."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.knowledge.introspect import load_catalog
from wenshu.sql.repeated_rows import once_per_row


@pytest.fixture(scope="module")
def kennel_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("rows") / "kennel.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE dogs (dog_id INTEGER PRIMARY KEY, name TEXT, age INT,
                               owner_id INT REFERENCES owners(owner_id));
            CREATE TABLE treatments (treatment_id INTEGER PRIMARY KEY, dog_id INT REFERENCES dogs(dog_id), cost INT);
            INSERT INTO owners VALUES (1, 'Oslo'), (2, 'Rome');
            INSERT INTO dogs VALUES (1, 'Rex', 2, 1), (2, 'Bo', 10, 2), (3, 'Kim', 6, 1);
            INSERT INTO treatments VALUES (1, 1, 100), (2, 1, 300), (3, 1, 50), (4, 2, 700);
        """)
    return db


@pytest.fixture(scope="module")
def catalog(kennel_db):
    return load_catalog("kennel", f"sqlite:///{kennel_db}")


def rows(db, sql):
    with sqlite3.connect(db) as conn:
        return sorted(conn.execute(sql).fetchall())


LIST = "SELECT d.name FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id WHERE t.cost > 60"
AVERAGE = "SELECT AVG(d.age) FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id WHERE t.cost > 60 AND d.age < 9"


def test_a_list_the_join_repeats_is_listed_once(catalog, kennel_db):
    assert rows(kennel_db, LIST) == [("Bo",), ("Rex",), ("Rex",)]
    fixed = once_per_row(LIST, catalog, "sqlite")
    assert fixed.changed and fixed.sql.startswith("SELECT DISTINCT") and "t.dog_id" in fixed.notes[0]
    assert rows(kennel_db, fixed.sql) == [("Bo",), ("Rex",)]


def test_an_average_over_the_join_counts_each_row_once(catalog, kennel_db):
    assert rows(kennel_db, AVERAGE) == [(2.0,)]  # Rex twice, and only Rex passes age < 9
    fixed = once_per_row(AVERAGE, catalog, "sqlite")
    flat = " ".join(fixed.sql.split())
    assert fixed.changed and "JOIN" not in flat.upper()
    assert "d.dog_id IN ( SELECT t.dog_id FROM treatments AS t WHERE t.cost > 60 ) AND d.age < 9" in flat
    two = once_per_row(AVERAGE.replace(" AND d.age < 9", ""), catalog, "sqlite")
    assert rows(kennel_db, two.sql) == [(6.0,)]  # (2 + 10) / 2, not (2 + 2 + 10) / 3


@pytest.mark.parametrize("sql", [
    LIST + " ORDER BY t.cost DESC",  # a ranking of treatments
    "SELECT d.name, COUNT(*) FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id GROUP BY d.name",
    "SELECT COUNT(*) FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id",  # dogs or treatments: not said
    "SELECT d.name, t.cost FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id",  # a row per treatment
    "SELECT d.name, o.city FROM dogs AS d JOIN owners AS o ON d.owner_id = o.owner_id",  # a lookup by key
    "SELECT d.name FROM dogs AS d JOIN owners AS o ON d.owner_id = o.owner_id WHERE o.city = 'Oslo'",
    "SELECT d.name FROM dogs AS d LEFT JOIN treatments AS t ON d.dog_id = t.dog_id",
    "SELECT DISTINCT d.name FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id",
    "SELECT * FROM dogs AS d JOIN treatments AS t ON d.dog_id = t.dog_id",
    LIST + " UNION SELECT name FROM dogs",
    "SELECT name FROM dogs",
])
def test_what_is_no_repetition_or_not_the_repairs_to_judge_is_left_alone(catalog, sql):
    assert not once_per_row(sql, catalog, "sqlite").changed


def test_the_agent_lists_once_and_its_switch_turns_it_off(settings, store, fake_model, kennel_db):
    from wenshu.agent.service import Agent
    from wenshu.contracts import AgentRequest
    from wenshu.providers.base import ModelClient

    store.datasources.add("kennel", f"sqlite:///{kennel_db}")
    for disabled, names, fired in (([], ["Bo", "Rex"], ["repeated_rows"]), (["repeated_rows"], ["Bo", "Rex", "Rex"], [])):
        s = settings.model_copy(update={"disabled_checks": disabled})
        agent = Agent(s, store, models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))
        fake_model.queue(LIST)
        resp = agent.ask(AgentRequest(message="Which dogs had a treatment costing over 60?", datasource="kennel"))
        assert resp.error is None and sorted(r[0] for r in resp.rows) == names
        assert [c for t in resp.trace if t.node == "validate" for c in t.checks] == fired
