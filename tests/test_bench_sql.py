"""The accuracy benchmark (`python -m bench sql`) end to end with the scripted fake model.

A tiny Spider-format set is built in a temp dir: two scorable questions, one whose database is
missing and one whose gold SQL fails. The fake model always answers the same SQL, so exactly one
question per mode is right. Also: the demo set's 3-question smoke run, resumption, the report.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bench.datasets import SUBSET_SEED, head, load_demo, load_spider, shared_bench_dir, stratified
from bench.hardness import hardness
from bench.scoring import QueryFailed, as_codes, contains_result, is_ordered, label_codes, run_sql, same_result

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny_set(tmp_path: Path) -> Path:
    db = tmp_path / "dbs" / "shop" / "shop.sqlite"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        conn.executescript(
            "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
            "INSERT INTO items VALUES (1,'pen',1.5),(2,'book',12.0),(3,'bag',30.25);"
        )
    questions = [
        {"db_id": "shop", "question": "How many items are there?", "query": "SELECT count(*) FROM items"},
        {"db_id": "shop", "question": "Names of items costing more than 10?", "query": "SELECT name FROM items WHERE price > 10"},
        {"db_id": "ghost", "question": "How many ghosts?", "query": "SELECT count(*) FROM ghosts"},
        {"db_id": "shop", "question": "A broken gold query", "query": "SELECT nope FROM items"},
    ]  # fmt: skip
    (tmp_path / "q.json").write_text(json.dumps(questions))
    return tmp_path


def _bench(tmp_path: Path, *args: str, answer: str = "SELECT count(*) FROM items") -> subprocess.CompletedProcess:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": answer}))
    env = {**os.environ, "WENSHU_FAKE_SCRIPT": str(script), "WENSHU_HOME": str(tmp_path / "home")}
    return subprocess.run([sys.executable, "-m", "bench", "sql", *args, "--model", "fake"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_spider_format_file_both_modes_and_resume(tiny_set: Path):
    out = tiny_set / "out.json"
    args = ("--set", str(tiny_set / "q.json"), "--db-dir", str(tiny_set / "dbs"), "--mode", "both", "--out", str(out))
    proc = _bench(tiny_set, *args)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    rows = {r["mode"]: r for r in data["summary"]}
    assert set(rows) == {"pipeline", "baseline"}
    for row in rows.values():
        assert row["n"] == 2 and row["accuracy"] == 50.0 and row["model"] == "fake"
        assert set(row) >= {"set", "mode", "model", "n", "accuracy", "median_s", "p90_s", "tokens_per_question"}
    classes = {(q["mode"], q["question"]): q["error_class"] for q in data["questions"]}
    assert classes[("pipeline", "How many ghosts?")] == "missing_db"
    assert classes[("baseline", "A broken gold query")] == "gold_error"
    assert classes[("pipeline", "Names of items costing more than 10?")] == "wrong_result"
    assert data["breakdown"]["pipeline"]["not_scored"] == {"missing_db": 1, "gold_error": 1}
    assert data["agreement"] == {"n": 2, "both_right": 1, "pipeline_only": 0, "baseline_only": 0, "both_wrong": 1,
                                 "pipeline_only_pct": 0.0, "baseline_only_pct": 0.0}  # fmt: skip
    pipeline_q = next(q for q in data["questions"] if q["mode"] == "pipeline" and q["correct"])
    assert pipeline_q["prompt_tokens"] > 0 and "generate" in pipeline_q["node_ms"]
    # A second run resumes: nothing is asked again, so a different model answer changes nothing.
    proc = _bench(tiny_set, *args, answer="SELECT name FROM items WHERE price > 10")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["summary"] == data["summary"]
    assert len(out.with_suffix(".jsonl").read_text().splitlines()) == 8
    # --fresh starts over, and now the other question is the right one.
    proc = _bench(tiny_set, *args, "--fresh", answer="SELECT name FROM items WHERE price > 10")
    again = {q["question"]: q["correct"] for q in json.loads(out.read_text())["questions"] if q["mode"] == "baseline"}
    assert again["Names of items costing more than 10?"] and not again["How many items are there?"]
    report = subprocess.run([sys.executable, "-m", "bench", "report", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert report.returncode == 0 and "| q | pipeline | fake | 2 |" in report.stdout
    assert "| q | 2 | 1 | 0 (0.0 %) | 0 (0.0 %) | 1 |" in report.stdout


def test_demo_smoke_run(tmp_path: Path):
    out = tmp_path / "demo.json"
    proc = _bench(tmp_path, "--set", "demo", "--limit", "3", "--mode", "both", "--out", str(out),
                  answer="SELECT count(*) FROM orders")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    expected = head(load_demo(Path("unused.sqlite")), 3)  # a follow-up stays with its first turn
    assert len(expected) >= 3 and [r["n"] for r in data["summary"]] == [len(expected)] * 2
    assert {q["id"] for q in data["questions"]} == {i.id for i in expected}
    assert all(q["error_class"] in ("ok", "wrong_result") for q in data["questions"])
    assert {q["split"] for q in data["questions"]} <= {"dev", "test"}


def test_demo_halves_are_sets_of_their_own(tmp_path: Path):
    """`--set demo_dev` runs only dev questions, and the summary reports accuracy per half."""
    halves = {h: {i.id for i in load_demo(Path("unused.sqlite"), h)} for h in ("dev", "test")}
    assert halves["dev"] and halves["test"] and not halves["dev"] & halves["test"]
    out = tmp_path / "dev.json"
    proc = _bench(tmp_path, "--set", "demo_dev", "--limit", "2", "--mode", "pipeline", "--out", str(out),
                  answer="SELECT count(*) FROM orders")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert {q["id"] for q in data["questions"]} <= halves["dev"]
    assert list(data["breakdown"]["pipeline"]["split"]) == ["dev"]


def test_scoring_rules(tmp_path: Path):
    assert same_result([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=False)
    assert not same_result([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=True)
    assert same_result([("a", 1.0)], [(1, "a")], ordered=True)  # column order and 1 == 1.0
    # rows tied on the sort key come back in any order; the order between different values still counts
    gold = [("x", 113), ("y", 113), ("z", 97)]
    assert same_result([("y", 113), ("x", 113), ("z", 97)], gold, ordered=True)
    assert not same_result([("z", 97), ("x", 113), ("y", 113)], gold, ordered=True)
    assert not same_result([("b",), ("a",)], [("a",), ("b",)], ordered=True)  # no numbers: no tie
    assert same_result([(0.333333333,)], [(1 / 3,)], ordered=False)
    assert not same_result([(1,), (1,)], [(1,)], ordered=False)  # multisets, not sets
    # Compared at the gold's precision: a gold ROUND(x, 2) accepts the unrounded value, not a different one.
    assert same_result([("app", 1234.5678)], [("app", 1234.57)], ordered=False)
    assert not same_result([("app", 1234.5878)], [("app", 1234.57)], ordered=False)
    assert not same_result([(0.12344,)], [(0.1235,)], ordered=False)
    assert contains_result([("2026-10", 5.0)], [(5,)], ordered=False)  # an extra label column is lenient-ok
    assert not contains_result([("2026-10", 6.0)], [(5,)], ordered=False)
    assert not same_result([("2026-10", 5.0)], [(5,)], ordered=False)
    assert is_ordered("SELECT a FROM t ORDER BY a") and not is_ordered("SELECT a FROM (SELECT a FROM t ORDER BY a)")
    db = tmp_path / "x.sqlite"
    sqlite3.connect(db).execute("CREATE TABLE t(a)").connection.commit()
    with pytest.raises(QueryFailed) as err:
        run_sql(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", timeout_s=0.3)
    assert err.value.kind == "timeout"


def test_a_coded_dimension_shown_by_its_label_is_the_same_answer():
    labels = label_codes("demo")
    assert labels["新一线"] == 2 and labels["tier 1"] == 1 and labels["小程序"] == "mini_program"
    gold = [(2, 10.5), (1, 89.5)]
    assert same_result(as_codes([("新一线", 10.5), ("tier 1", 89.5)], labels), as_codes(gold, labels), ordered=False)
    assert not same_result(as_codes([("二线", 10.5), ("tier 1", 89.5)], labels), gold, ordered=False)
    assert label_codes("concert_singer") == {}  # a database without a bundled semantic model: values as they are


def test_hardness_and_fixed_subset():
    assert hardness("SELECT count(*) FROM singer") == "easy"
    assert hardness("SELECT name FROM singer WHERE age > 20 ORDER BY age") == "medium"
    assert hardness("SELECT a FROM t EXCEPT SELECT a FROM u WHERE b = 1 OR c = 2") == "extra"
    dev = shared_bench_dir() / "spider_dev"
    if not dev.exists():
        pytest.skip(f"Spider dev is not at {dev}")
    items = load_spider(dev / "dev.json", dev / "database", "dev")
    first, second = stratified(items, 200, SUBSET_SEED), stratified(items, 200, SUBSET_SEED)
    assert len(first) == 200 and [i.id for i in first] == [i.id for i in second]
    share = lambda xs, b: sum(i.hardness == b for i in xs) / len(xs)  # noqa: E731
    assert all(abs(share(first, b) - share(items, b)) < 0.01 for b in ("easy", "medium", "hard", "extra"))


def test_candidates_vote_and_the_report_says_so(tiny_set: Path):
    out = tiny_set / "vote.json"
    args = ("--set", str(tiny_set / "q.json"), "--db-dir", str(tiny_set / "dbs"), "--mode", "pipeline",
            "--candidates", "3", "--out", str(out))  # fmt: skip
    proc = _bench(tiny_set, *args)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["summary"][0]["candidates"] == 3 and data["commit"]
    answered = [q for q in data["questions"] if q.get("llm_calls")]
    assert answered and all(q["llm_calls"] == 2 for q in answered)  # the sample agreed: no third draw
    report = subprocess.run([sys.executable, "-m", "bench", "report", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert "| q | pipeline, vote of 3 | fake |" in report.stdout


def test_an_ablation_asks_again_only_where_the_check_fired(tmp_path: Path):
    db = tmp_path / "dbs" / "shop" / "shop.sqlite"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        conn.executescript("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT);"
                           "INSERT INTO items VALUES (1,'pen'),(2,'pen'),(3,'bag');")  # fmt: skip
    questions = [{"db_id": "shop", "question": "How many items are there?", "query": "SELECT count(*) FROM items"},
                 {"db_id": "shop", "question": "How many items per name?",
                  "query": "SELECT name, count(*) FROM items GROUP BY name"}]  # fmt: skip
    (tmp_path / "q.json").write_text(json.dumps(questions))
    flat, grouped = "SELECT count(*) FROM items", "SELECT name, count(*) FROM items GROUP BY name"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [flat, flat, grouped], "default": flat}))
    env = {**os.environ, "WENSHU_FAKE_SCRIPT": str(script), "WENSHU_HOME": str(tmp_path / "home")}
    common = [sys.executable, "-m", "bench", "sql", "--set", str(tmp_path / "q.json"), "--db-dir",
              str(tmp_path / "dbs"), "--mode", "pipeline", "--model", "fake"]  # fmt: skip
    ref = tmp_path / "ref.json"
    proc = subprocess.run([*common, "--out", str(ref)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    checks = {q["question"]: q["checks"] for q in json.loads(ref.read_text())["questions"]}
    assert checks == {"How many items are there?": [], "How many items per name?": ["per_group"]}

    script.write_text(json.dumps({"default": flat}))  # without the check, the first answer stands
    out = tmp_path / "ablated.json"
    proc = subprocess.run([*common, "--ablate", "per_group", "--only-fired", str(ref), "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["disabled_checks"][-1] == "per_group" and "value_filter" in data["disabled_checks"]  # on the defaults
    assert [q.get("copied", False) for q in data["questions"]] == [True, False]
    assert data["ablation"] == {"ablated": ["per_group"], "fired_on": 1, "correct_with": 1, "correct_without": 0,
                                "accuracy_with": 100.0, "accuracy_without": 50.0, "points": 50.0}  # fmt: skip
    bad = subprocess.run([*common, "--ablate", "per_grup", "--out", str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert bad.returncode != 0 and "per_group" in bad.stderr


def test_the_baseline_reads_the_create_statements_as_stored(tmp_path: Path):
    from bench.modes import create_statements

    db = tmp_path / "x.sqlite"
    ddl = "CREATE TABLE singer (\n  id int PRIMARY KEY, -- who\n  name text\n)"
    with sqlite3.connect(db) as conn:
        conn.executescript(ddl + "; CREATE TABLE song(id int, singer_id int REFERENCES singer(id));")
    assert create_statements(db) == ddl + ";\n\nCREATE TABLE song(id int, singer_id int REFERENCES singer(id));"


def test_each_named_set_has_a_role_and_the_spider_dev_halves_do_not_overlap():
    from bench.datasets import resolve_set, role_of

    assert (role_of("spider_dev_200"), role_of("spider_dk"), role_of("spider_dev_test"), role_of("demo_test")) == (
        "development", "validation", "test", "test")
    if not (shared_bench_dir() / "spider_dk").exists():
        pytest.skip(f"Spider data is not at {shared_bench_dir()}")
    whole, dev, rest = (resolve_set(n, db_dir=None, tables=None, demo_db=None)[1]
                        for n in ("spider_dev", "spider_dev_200", "spider_dev_test"))  # fmt: skip
    assert {i.id for i in dev} | {i.id for i in rest} == {i.id for i in whole}
    assert not {i.id for i in dev} & {i.id for i in rest}
    dk = resolve_set("spider_dk", db_dir=None, tables=None, demo_db=None)[1]
    assert sum(i.problem is None for i in dk) == 473  # on Spider dev's databases and its own three
    zh = resolve_set("spider_dev_zh", db_dir=None, tables=None, demo_db=None)[1]
    assert role_of("spider_dev_zh") == "development" and len(zh) == 53 and {i.lang for i in zh} == {"zh"}
    assert {i.gold_sql for i in zh} <= {i.gold_sql for i in dev}  # Chinese wordings of development questions


def test_ids_ask_only_the_named_questions(tiny_set: Path):
    out = tiny_set / "some.json"
    base = ("--set", str(tiny_set / "q.json"), "--db-dir", str(tiny_set / "dbs"), "--mode", "pipeline", "--out", str(out))
    (tiny_set / "ids.txt").write_text("q-0001\n")
    proc = _bench(tiny_set, *base, "--ids", f"@{tiny_set / 'ids.txt'}")
    assert proc.returncode == 0, proc.stderr
    assert [q["id"] for q in json.loads(out.read_text())["questions"]] == ["q-0001"]
    proc = _bench(tiny_set, *base, "--ids", "q-0000,q-0099")
    assert proc.returncode != 0 and "q-0099" in proc.stderr
