"""A SQL rewrite replayed on a run's stored answers, without the model: which answers it changes, gains
and loses.

    python -m bench rewrite --set spider_dk --run RESULTS.jsonl --rule repeated_rows
    python -m bench rewrite --set spider_dk --run RESULTS.jsonl --rule unkeyed_join --second BASE.jsonl:baseline

A rule of `bench/rewrite_rules.py` rewrites each stored pipeline SQL (the rewritten SQL runs on the
question's database and is scored like `bench sql`). `unkeyed_join` instead takes the second run's SQL
where the first joins on columns no key links and the second's joins are keyed and it ran (the product's
check asks the plain prompt there). Only counts are printed, so validation and test sets can be replayed
without reading their questions. Exact for a rewrite of the final SQL; a live run can differ where the
rewrite would change a later check's verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench import datasets
from bench.modes import score
from bench.scoring import QueryFailed, run_sql


def add_arguments(p) -> None:
    from bench.rewrite_rules import RULES

    p.add_argument("--set", required=True, help="the set the run answered, e.g. spider_dev_200 or spider_dk")
    p.add_argument("--db-dir", help="with a Spider-format question file as --set: the folder of <db_id>/<db_id>.sqlite")
    p.add_argument("--run", required=True, help="the run's predictions (.jsonl); its pipeline records are replayed")
    p.add_argument("--rule", required=True, choices=[*RULES, "unkeyed_join"])
    p.add_argument("--second", help="FILE.jsonl:MODE, for --rule unkeyed_join: the plain reading's stand-in")
    p.add_argument("--out", help="write the figures as JSON here too")
    p.set_defaults(func=run)


def _records(path: str, mode: str) -> dict[str, dict]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines) if r.get("mode") == mode and r.get("path", "sql") == "sql"}


def run(args) -> int:
    import sqlalchemy as sa

    from bench.rewrite_rules import RULES
    from wenshu.agent.plain_reading import guessed_join
    from wenshu.knowledge.introspect import read_catalog

    _, items = datasets.resolve_set(args.set, db_dir=args.db_dir, tables=None, demo_db=None)
    by_id = {i.id: i for i in items if i.problem is None and i.db_path is not None}
    first = _records(args.run, "pipeline")
    second = _records(*args.second.rsplit(":", 1)) if args.second else {}
    if args.rule == "unkeyed_join" and not second:
        raise SystemExit("--rule unkeyed_join needs --second FILE.jsonl:MODE")
    catalogs: dict = {}
    n = changed = gained = lost = 0
    for qid, rec in first.items():
        item = by_id.get(qid)
        if item is None or rec.get("error_class") in ("missing_db", "gold_error") or not rec.get("pred_sql"):
            continue
        n += 1
        if item.db_id not in catalogs:
            catalogs[item.db_id] = read_catalog(sa.create_engine(f"sqlite:///{item.db_path}"), item.db_id)
        catalog = catalogs[item.db_id]
        if args.rule == "unkeyed_join":
            other = second.get(qid) or {}
            fits = other.get("pred_sql") and other.get("error_class") in ("ok", "wrong_result")
            new = other["pred_sql"] if fits and guessed_join(rec["pred_sql"], catalog) \
                and not guessed_join(other["pred_sql"], catalog) else None
        else:
            try:
                new = RULES[args.rule](rec["pred_sql"], catalog, item.question, item.db_path)
            except Exception:  # noqa: BLE001 - a rewrite that cannot read the SQL leaves it as it is
                new = None
        if not new or new == rec["pred_sql"]:
            continue
        changed += 1
        try:
            right = score(item, new, run_sql(item.db_path, item.gold_sql))[0]
        except QueryFailed:
            continue
        gained += right and not rec["correct"]
        lost += bool(rec["correct"]) and not right
    figures = {"set": args.set, "run": args.run, "rule": args.rule, "second": args.second, "n": n, "changed": changed,
               "gained": gained, "lost": lost, "points": round(100 * (gained - lost) / n, 1) if n else 0.0}
    print(json.dumps(figures, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0
