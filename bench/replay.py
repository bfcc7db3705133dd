"""Replay two runs' stored SQL on the same questions, without the model: how two ways of answering would
combine.

    python -m bench replay --set spider_dk --first RESULTS.jsonl:pipeline --second OTHER.jsonl:baseline

Each stored `pred_sql` runs again on its database (read-only, 10 s), its rows reduced to the signature the
agent's vote uses (agent/vote.py). Reported over the questions both runs scored: each run's accuracy, the
questions only one gets right, the oracle (either right), and two ways of combining them:
- `fallback`: the first, unless its SQL fails or returns no rows and the second's returns rows (check
  `plain_reading` with the plain prompt second);
- `second_on_disagreement`: as `fallback`, and the second also where both return rows that differ (check
  `plain_preferred`).
Only counts are printed, so a validation or test set can be replayed without reading its questions.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench import datasets
from bench.scoring import QueryFailed, run_sql


def add_arguments(p) -> None:
    p.add_argument("--set", required=True, help="the set both runs answered, e.g. spider_dev_200 or spider_dk")
    p.add_argument("--first", required=True, help="FILE.jsonl:MODE, the answer kept by default")
    p.add_argument("--second", required=True, help="FILE.jsonl:MODE, the other reading")
    p.add_argument("--out", help="write the figures as JSON here too")
    p.set_defaults(func=run)


def _records(spec: str) -> dict[str, dict]:
    path, mode = spec.rsplit(":", 1)
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("mode") == mode and r.get("correct") is not None and r.get("error_class") not in ("missing_db", "gold_error"):
            out[r["id"]] = r  # the last record of a question wins, as in bench sql
    return out


def _signature(db: Path, sql: str | None) -> str | None:
    """None when the SQL fails or returns no rows, else the vote's signature of its rows."""
    from wenshu.agent.vote import signature

    try:
        rows = run_sql(db, sql, timeout_s=10.0) if sql else []
    except QueryFailed:
        return None
    return signature(rows, [""] * len(rows[0])) if rows else None


def combine(pairs: list[tuple[str | None, bool, str | None, bool]]) -> dict:
    """Figures over (first signature, first right, second signature, second right) per question."""
    n = len(pairs)
    fallback = sum(c2 if s1 is None and s2 is not None else c1 for s1, c1, s2, c2 in pairs)
    differ = [(c1, c2) for s1, c1, s2, c2 in pairs if s1 is not None and s2 is not None and s1 != s2]
    prefer = fallback - sum(c1 for c1, _ in differ) + sum(c2 for _, c2 in differ)
    pct = lambda k: round(100 * k / n, 1) if n else 0.0  # noqa: E731
    return {"n": n, "first": pct(sum(p[1] for p in pairs)), "second": pct(sum(p[3] for p in pairs)),
            "only_first": sum(c1 and not c2 for _, c1, _, c2 in pairs),
            "only_second": sum(c2 and not c1 for _, c1, _, c2 in pairs),
            "oracle": pct(sum(c1 or c2 for _, c1, _, c2 in pairs)), "fallback": pct(fallback),
            "disagree": len(differ), "disagree_first_right": sum(c1 for c1, _ in differ),
            "disagree_second_right": sum(c2 for _, c2 in differ), "second_on_disagreement": pct(prefer)}


def run(args) -> int:
    _, items = datasets.resolve_set(args.set, db_dir=None, tables=None, demo_db=None)
    by_id = {i.id: i for i in items if i.problem is None}
    first, second = _records(args.first), _records(args.second)
    pairs = []
    for qid in (q for q in first if q in second and q in by_id):
        db = by_id[qid].db_path
        pairs.append((_signature(db, first[qid].get("pred_sql")), bool(first[qid]["correct"]),
                      _signature(db, second[qid].get("pred_sql")), bool(second[qid]["correct"])))
    figures = {"set": args.set, "first_run": args.first, "second_run": args.second, **combine(pairs)}
    print(json.dumps(figures, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0
