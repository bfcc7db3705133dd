"""`python -m bench rewrite`: a SQL rewrite replayed on stored answers and scored against the gold SQL on a
real SQLite database, without the model."""

from __future__ import annotations

import argparse
import json
import sqlite3

import pytest

from bench import rewrite


@pytest.fixture
def spider_like(tmp_path):
    db_dir = tmp_path / "database"
    (db_dir / "kennel").mkdir(parents=True)
    with sqlite3.connect(db_dir / "kennel" / "kennel.sqlite") as conn:
        conn.executescript("""
            CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE dogs (dog_id INTEGER PRIMARY KEY, name TEXT, owner_id INT REFERENCES owners(owner_id));
            CREATE TABLE treatments (treatment_id INTEGER PRIMARY KEY, dog_id INT REFERENCES dogs(dog_id));
            INSERT INTO owners VALUES (1, 'Oslo'), (2, 'Rome');
            INSERT INTO dogs VALUES (1, 'Rex', 1), (2, 'Bo', 2);
            INSERT INTO treatments VALUES (1, 1), (2, 1), (3, 2);
        """)
    questions = tmp_path / "mini.json"
    questions.write_text(json.dumps([
        {"db_id": "kennel", "question": "Which dogs had a treatment?",
         "query": "SELECT DISTINCT d.name FROM dogs d JOIN treatments t ON d.dog_id = t.dog_id"},
        {"db_id": "kennel", "question": "Which city is Rex's owner in?",
         "query": "SELECT o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id WHERE d.name = 'Rex'"},
    ]))
    guessed = "SELECT o.city FROM dogs d JOIN owners o ON d.dog_id = o.owner_id WHERE d.name = 'Bo'"
    run = tmp_path / "run.jsonl"
    records = [
        {"id": "mini-0000", "mode": "pipeline", "correct": False, "error_class": "wrong_result",
         "pred_sql": "SELECT d.name FROM dogs d JOIN treatments t ON d.dog_id = t.dog_id"},
        {"id": "mini-0001", "mode": "pipeline", "correct": False, "error_class": "wrong_result", "pred_sql": guessed},
        {"id": "mini-0001", "mode": "baseline", "correct": True, "error_class": "ok",
         "pred_sql": "SELECT o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id WHERE d.name = 'Rex'"},
    ]
    run.write_text("".join(json.dumps(r) + "\n" for r in records))
    return questions, db_dir, run


def replay(capsys, questions, db_dir, run, rule, second=None) -> dict:
    args = argparse.Namespace(set=str(questions), db_dir=str(db_dir), run=str(run), rule=rule, second=second, out=None)
    assert rewrite.run(args) == 0
    return json.loads(capsys.readouterr().out)


def test_a_rewrite_is_scored_against_the_gold_rows(spider_like, capsys):
    got = replay(capsys, *spider_like, "repeated_rows")
    assert (got["n"], got["changed"], got["gained"], got["lost"], got["points"]) == (2, 1, 1, 0, 50.0)


def test_unkeyed_join_takes_the_second_runs_keyed_sql(spider_like, capsys):
    questions, db_dir, run = spider_like
    got = replay(capsys, questions, db_dir, run, "unkeyed_join", f"{run}:baseline")
    assert (got["changed"], got["gained"], got["lost"]) == (1, 1, 0)
    with pytest.raises(SystemExit):
        replay(capsys, questions, db_dir, run, "unkeyed_join")
