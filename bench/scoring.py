"""Execution accuracy: run predicted and gold SQL on the same SQLite database and compare results.

Results are compared as multisets of rows; the order of rows matters only when the gold SQL has a
top-level ORDER BY, and then not among tied rows (consecutive gold rows holding the same numbers, which
a database returns in any order). Column order is ignored: each row is compared as the sorted multiset of its
values. A coded dimension's label counts as its stored code (一线 = 1 = "tier 1", from the bundled
semantic model). Numbers are normalised (1 == 1.0) and floats are compared at the gold result's precision:
when every fractional gold value has at most d < 4 decimals (the gold SQL rounds, e.g.
ROUND(x, 2)), both sides are rounded to d decimals, else to 4, so float noise, integer vs real
affinity and a missing ROUND() do not decide a question. A query that errors or runs past the time limit scores
wrong. Gold queries run through the same function, so a failing gold SQL is reported, not scored.
"""

from __future__ import annotations

import functools
import itertools
import math
import sqlite3
import time
from collections import Counter
from pathlib import Path

import sqlglot
import yaml
from sqlglot import exp

MAX_ROWS = 100_000  # rows fetched per query for the comparison


class QueryFailed(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind  # "runtime_error" | "timeout"


def run_sql(db: Path, sql: str, timeout_s: float = 30.0) -> list[tuple]:
    """Rows of `sql` on a read-only connection; QueryFailed on error or timeout."""
    deadline = time.monotonic() + timeout_s
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
    try:
        return conn.execute(sql).fetchmany(MAX_ROWS)
    except sqlite3.OperationalError as err:
        if "interrupted" in str(err):
            raise QueryFailed("timeout", f"ran past {timeout_s:g} s") from err
        raise QueryFailed("runtime_error", str(err)) from err
    except (sqlite3.Error, ValueError) as err:  # ValueError: e.g. two statements
        raise QueryFailed("runtime_error", str(err)) from err
    finally:
        conn.close()


def _decimals(v: float) -> int:
    text = repr(v)
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text else 4


def precision(gold: list) -> int:
    """Decimals the comparison keeps: the most any fractional gold value shows, at most 4."""
    fractional = [v for row in gold for v in row if isinstance(v, float) and math.isfinite(v) and not v.is_integer()]
    return min(4, max((_decimals(v) for v in fractional), default=4))


def _norm(v, places: int = 4):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        v = round(v, places)
        return int(v) if v.is_integer() else v
    if isinstance(v, bytes):
        return v.hex()
    return v


def _canon(row: tuple, places: int = 4) -> tuple:
    return tuple(sorted((_norm(v, places) for v in row), key=lambda x: (type(x).__name__ != "str", repr(x))))


@functools.cache
def label_codes(db_id: str) -> dict[str, object]:
    """label (case-folded) -> stored code, from the bundled semantic model's coded dimensions (一线 and
    "tier 1" are city_tier 1): an answer that shows a code as its label shows the same group. Empty for a
    database without a bundled model (Spider's)."""
    from wenshu.semantic.library import bundled_text

    text = bundled_text(db_id)
    if not text:
        return {}
    out: dict[str, object] = {}
    for d in yaml.safe_load(text).get("dimensions") or []:
        for names in (d.get("labels") or {}, d.get("labels_en") or {}):
            for code, label in names.items():
                code = str(code)
                out[str(label).casefold()] = int(code) if code.lstrip("-").isdigit() else code
    return out


def as_codes(rows: list, labels: dict[str, object]) -> list:
    """Rows with every value that is a label of a coded dimension replaced by its code."""
    if not labels:
        return rows
    return [tuple(labels.get(v.casefold(), v) if isinstance(v, str) else v for v in r) for r in rows]


def _ties(rows: list[tuple]) -> list[list[tuple]]:
    """An ordered result cut into runs of consecutive rows that hold the same numbers (a tie of the sort key,
    which in practice is a measure): a database returns tied rows in any order. A row without a number is a
    run of its own."""
    runs: list[tuple[tuple, list[tuple]]] = []
    for row in rows:
        numbers = tuple(v for v in row if isinstance(v, (int, float)))
        if runs and numbers and runs[-1][0] == numbers:
            runs[-1][1].append(row)
        else:
            runs.append((numbers, [row]))
    return [r for _, r in runs]


def same_result(pred: list, gold: list, ordered: bool) -> bool:
    if len(pred) != len(gold):
        return False
    places = precision(gold)
    p, g = [_canon(r, places) for r in pred], [_canon(r, places) for r in gold]
    if not ordered:
        return Counter(p) == Counter(g)
    if p == g:
        return True
    at = 0  # the same rows in the gold's order, tied rows in any order among themselves
    for run in _ties(g):
        if Counter(p[at:at + len(run)]) != Counter(run):
            return False
        at += len(run)
    return True


def contains_result(pred: list, gold: list, ordered: bool) -> bool:
    """Lenient match: some choice of the prediction's columns reproduces the gold result exactly.

    An answer that adds a label column (e.g. the month or region it was filtered on) passes; the
    strict `same_result` is the reported accuracy, this one a secondary number."""
    if len(pred) != len(gold):
        return False
    if not gold or len(pred[0]) == len(gold[0]):
        return same_result(pred, gold, ordered)
    width, need = len(pred[0]), len(gold[0])
    if need > width or width > 8:
        return False
    return any(same_result([tuple(r[i] for i in cols) for r in pred], gold, ordered)
               for cols in itertools.combinations(range(width), need))


def is_ordered(sql: str) -> bool:
    """Whether the top-level query has ORDER BY (then row order is part of the answer)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001
        return "order by" in sql.lower()
    return tree is not None and tree.args.get("order") is not None and not isinstance(tree, exp.Subquery)
