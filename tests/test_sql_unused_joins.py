"""The unused-join repair: an inner join the query reads nothing from, whose table the question does
not name, goes; every join that is used, bridges, or is named stays. Real SQLite catalog."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.knowledge.introspect import load_catalog
from wenshu.sql.unused_joins import drop_unused_joins


@pytest.fixture(scope="module")
def fest_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("joins") / "fest.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name TEXT, age INT, hit_title TEXT);
            CREATE TABLE festival (festival_id INTEGER PRIMARY KEY, theme TEXT);
            CREATE TABLE artist_in_festival (artist_id INT REFERENCES artist(artist_id),
                                             festival_id INT REFERENCES festival(festival_id));
            INSERT INTO artist VALUES (1, 'Ann', 30, 'Hey'), (2, 'Bo', 22, 'Ho');
            INSERT INTO festival VALUES (1, 'summer');
            INSERT INTO artist_in_festival VALUES (1, 1), (1, 1);
        """)
    return db


@pytest.fixture(scope="module")
def catalog(fest_db):
    return load_catalog("fest", f"sqlite:///{fest_db}")


JOINED = ("SELECT a.name, a.hit_title FROM artist AS a JOIN artist_in_festival AS af ON a.artist_id = af.artist_id "
          "ORDER BY a.age LIMIT 1")  # fmt: skip


def test_a_join_nothing_reads_and_the_question_does_not_name_goes(catalog):
    fixed = drop_unused_joins(JOINED, catalog, "sqlite", "Give the hit title of the youngest artist")
    assert fixed.changed and "artist_in_festival" not in fixed.sql and "dropped JOIN artist_in_festival" in fixed.notes[0]
    assert " ".join(fixed.sql.split()) == "SELECT a.name, a.hit_title FROM artist AS a ORDER BY a.age LIMIT 1"


def test_a_chain_of_joins_nothing_reads_goes_whole_even_when_the_bridge_shares_the_far_tables_name(catalog, fest_db):
    """The bridge's name holds the far table's word, so neither sets itself apart from the other; only the
    tables the query reads count, and the bridge goes once its far side has."""
    chain = ("SELECT a.name FROM artist AS a JOIN artist_in_festival AS af ON a.artist_id = af.artist_id "
             "JOIN festival AS f ON af.festival_id = f.festival_id WHERE a.hit_title LIKE '%Hey%'")
    fixed = drop_unused_joins(chain, catalog, "sqlite", "Which artists have a hit with Hey in its title?")
    assert " ".join(fixed.sql.split()) == "SELECT a.name FROM artist AS a WHERE a.hit_title LIKE '%Hey%'"
    assert [n.split(" (")[0] for n in fixed.notes] == ["dropped JOIN festival", "dropped JOIN artist_in_festival"]
    with sqlite3.connect(fest_db) as conn:
        assert conn.execute(fixed.sql).fetchall() == [("Ann",)]  # once, not once per festival visit
    assert not drop_unused_joins(chain, catalog, "sqlite", "Which festival artists have a hit named Hey?").changed


@pytest.mark.parametrize("question", [
    "Give the hit title of the youngest artist who played at a festival",  # the question names it
    "Which artists played festivals?",  # plural
])
def test_a_named_table_keeps_its_join(catalog, question):
    assert not drop_unused_joins(JOINED, catalog, "sqlite", question).changed


@pytest.mark.parametrize("sql", [
    # read in the select list, the WHERE, a subquery; a bridge to a later join; SELECT *; an outer join
    "SELECT a.name, af.festival_id FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id",
    "SELECT a.name FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id WHERE af.festival_id = 1",
    "SELECT a.name FROM artist a JOIN festival f ON f.festival_id = 1 WHERE a.age > (SELECT MIN(f.festival_id))",
    "SELECT a.name FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id "
    "JOIN festival f ON af.festival_id = f.festival_id WHERE f.theme = 'summer'",
    "SELECT * FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id",
    "SELECT a.name FROM artist a LEFT JOIN artist_in_festival af ON a.artist_id = af.artist_id",
    # a count or an average over the join: the joined rows are what is counted
    "SELECT a.name FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id "
    "GROUP BY a.name ORDER BY COUNT(*) DESC LIMIT 1",
    "SELECT AVG(a.age) FROM artist a JOIN artist_in_festival af ON a.artist_id = af.artist_id",
])
def test_a_join_that_is_read_bridges_is_outer_or_counted_stays(catalog, sql):
    assert not drop_unused_joins(sql, catalog, "sqlite", "Show the oldest artist's name").changed


def test_a_question_in_another_script_says_nothing_either_way(catalog):
    assert not drop_unused_joins(JOINED, catalog, "sqlite", "最年轻的艺人的代表作是什么？").changed
    assert not drop_unused_joins(JOINED, catalog, "sqlite", "").changed


def test_the_agent_runs_the_pruned_statement_and_its_switch_turns_it_off(settings, store, fake_model, fest_db):
    from wenshu.agent.service import Agent
    from wenshu.contracts import AgentRequest
    from wenshu.providers.base import ModelClient

    store.datasources.add("fest", f"sqlite:///{fest_db}")
    for disabled, rows, fired in (([], [["Bo", "Ho"]], ["unused_join"]), (["unused_join"], [["Ann", "Hey"]], [])):
        s = settings.model_copy(update={"disabled_checks": disabled})
        agent = Agent(s, store, models=ModelClient(models={"strong": fake_model, "fast": fake_model}, provider="fake"))
        fake_model.queue(JOINED)
        resp = agent.ask(AgentRequest(message="Give the hit title of the youngest artist", datasource="fest"))
        assert resp.error is None and resp.rows == rows
        assert [c for t in resp.trace if t.node == "validate" for c in t.checks] == fired

