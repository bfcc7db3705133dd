"""Self-consistency: sample a few more SQL candidates and keep the one whose result most agree on.

A small model's first (greedy) SQL is often one of several plausible readings. Sampling more
candidates and running each (guarded, read-only, bounded) lets the results vote: when two
candidates return the same rows, that answer is more likely right than a lone one. The greedy
candidate wins ties, and a candidate that cannot run has no vote, so a greedy SQL that fails is
replaced by a sampled one that runs (saving a retry round).

It stops early: when the first sampled candidate agrees with the greedy one, no more are drawn.
With `sql_candidates = 1`, and on retries, nothing extra runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from wenshu.errors import WenshuError

Sampler = Callable[[int], str | None]  # round -> a sampled SQL (or None)
Runner = Callable[[str], str | None]  # SQL -> signature of its result (None when it cannot run)


def signature(rows: list, columns: list[str]) -> str:
    """Order- and column-order-free fingerprint of a result (floats to 4 decimals)."""

    def norm(v):
        if isinstance(v, float):
            v = round(v, 4)
            return int(v) if v.is_integer() else v
        return v

    canon = sorted(json.dumps(sorted((norm(v) for v in r), key=repr), default=str) for r in rows)
    return hashlib.sha1(f"{len(columns)}|{'|'.join(canon)}".encode()).hexdigest()


def choose(first: str, sample: Sampler, run: Runner, n: int) -> tuple[str, dict]:
    """The SQL to continue with, and a note of the vote ({candidates, ran, votes})."""
    candidates = [first]
    sigs = [run(first)]
    for i in range(1, n):
        sql = sample(i)
        if not sql:
            continue
        candidates.append(sql)
        sigs.append(run(sql))
        if i == 1 and sigs[0] is not None and sigs[1] == sigs[0]:
            break  # the greedy answer is confirmed
    votes: dict[str, int] = {}
    for s in sigs:
        if s is not None:
            votes[s] = votes.get(s, 0) + 1
    note = {"candidates": len(candidates), "ran": sum(s is not None for s in sigs), "votes": max(votes.values(), default=0)}
    if not votes:
        return first, note
    best = max(votes.values())
    winner = next(i for i, s in enumerate(sigs) if s is not None and votes[s] == best)
    note["chosen"] = winner
    return candidates[winner], note


def make_runner(run_path) -> Runner:
    """Run a candidate the way validate + execute do: the one checked run path (repaired, guarded,
    read-only, bounded, through the result cache)."""

    def run(sql: str) -> str | None:
        checked = run_path.check(sql)
        if not checked.passed:
            return None
        try:
            res = run_path.execute(checked.sql)
        except WenshuError:
            return None
        if not res.rows:
            return None  # an empty result is no evidence either way
        return signature(res.rows, res.columns)

    return run
