"""`python -m bench replay`: two runs' stored SQL combined without the model, on a real SQLite database."""

from __future__ import annotations

import sqlite3

from bench.replay import _signature, combine


def test_the_combinations_follow_the_first_unless_it_fails_or_the_second_disagrees():
    pairs = [("a", True, "a", True),    # agree, both right
             (None, False, "b", True),  # the first fails: the second rescues it
             ("c", True, "d", False),   # disagree: first right
             ("e", False, "f", True),   # disagree: second right
             ("g", False, None, False)]  # the second fails: the first stays
    got = combine(pairs)
    assert (got["first"], got["second"], got["oracle"]) == (40.0, 60.0, 80.0)
    assert (got["only_first"], got["only_second"]) == (1, 2)
    assert got["fallback"] == 60.0 and got["second_on_disagreement"] == 60.0
    assert (got["disagree"], got["disagree_first_right"], got["disagree_second_right"]) == (2, 1, 1)


def test_a_signature_is_none_for_an_error_or_no_rows_and_ignores_row_order(tmp_path):
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x INTEGER, y TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b")])
    assert _signature(db, "SELECT x, y FROM t ORDER BY x") == _signature(db, "SELECT y, x FROM t ORDER BY x DESC")
    assert _signature(db, "SELECT x FROM t WHERE x > 5") is None and _signature(db, "SELECT nope FROM t") is None
    assert _signature(db, None) is None
