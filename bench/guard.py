"""Validation time of the SQL guard (layers 1-3, with catalogs) over the Spider dev gold queries.

Every gold query whose SQLite database is present (972 of 1034 in `spider_dev`) is checked against
its own database's catalog (`load_catalog`, loaded once per database, outside the timing), after
one warm-up pass. Prints the count, refusals, median, p90, p99 and max in milliseconds and writes
`bench/results/guard.json`. The Spider folder is WENSHU_SPIDER_DIR, else ../shared/bench/spider_dev.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path

GOALS_MS = {"median": 2.0, "p99": 20.0}


def spider_dir() -> Path:
    env = os.environ.get("WENSHU_SPIDER_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "spider_dev"


def gold_cases(root: Path) -> tuple[list[tuple[str, str]], dict]:
    """([(db_id, gold SQL)] for every question whose database exists, {db_id: Catalog})."""
    from wenshu.knowledge.introspect import load_catalog

    rows = json.loads((root / "dev.json").read_text(encoding="utf-8"))
    cases, catalogs = [], {}
    for row in rows:
        db = row["db_id"]
        path = root / "database" / db / f"{db}.sqlite"
        if not path.is_file():
            continue
        if db not in catalogs:
            catalogs[db] = load_catalog(db, f"sqlite:///{path}")
        cases.append((db, row["query"]))
    return cases, catalogs


def _pct(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(round(q * (len(sorted_ms) - 1))))]


def measure(cases, catalogs, row_limit: int = 1000) -> dict:
    from wenshu.guard import Guard

    guard = Guard(row_limit=row_limit)
    for db, sql in cases:  # warm-up: imports, sqlglot caches
        guard.check(sql, dialect="sqlite", catalog=catalogs[db])
    times, refused = [], []
    for db, sql in cases:
        t0 = time.perf_counter()
        out = guard.check(sql, dialect="sqlite", catalog=catalogs[db])
        times.append((time.perf_counter() - t0) * 1000)
        if not out.passed:
            refused.append({"db_id": db, "sql": sql, "code": out.code, "reason": out.reason})
    ms = sorted(times)
    return {
        "queries": len(cases), "passed": len(cases) - len(refused), "refused": refused,
        "median_ms": round(statistics.median(ms), 3), "p90_ms": round(_pct(ms, 0.90), 3),
        "p99_ms": round(_pct(ms, 0.99), 3), "max_ms": round(ms[-1], 3), "goals_ms": GOALS_MS,
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}",
    }  # fmt: skip


def run(args) -> int:
    root = Path(args.spider) if args.spider else spider_dir()
    if not (root / "dev.json").is_file():
        print(f"Spider dev set not found at {root} (set WENSHU_SPIDER_DIR).")
        return 2
    cases, catalogs = gold_cases(root)
    result = measure(cases, catalogs)
    print(f"guard layers 1-3 over {result['queries']} Spider gold queries: {result['passed']} passed, "
          f"{len(result['refused'])} refused")
    print(f"median {result['median_ms']} ms (goal <= {GOALS_MS['median']}), p90 {result['p90_ms']} ms, "
          f"p99 {result['p99_ms']} ms (goal <= {GOALS_MS['p99']}), max {result['max_ms']} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0 if not result["refused"] else 1


def add_arguments(p) -> None:
    p.add_argument("--spider", default=None, help="Spider dev folder (dev.json + database/)")
    p.add_argument("--out", default="bench/results/guard.json")
    p.set_defaults(func=run)
