"""Overhead of layer 4 (the read-only connection) versus a plain connection.

For every Spider dev gold query, the median wall time over `--repeat` runs of:
- SQLite, plain: `sqlite3.connect(file)`, execute, fetch up to the row limit, close;
- SQLite, layer 4: `execute_readonly` (read-only URI open, authorizer, limits, progress handler,
  batched fetch, the true row count of a truncated result);
- PostgreSQL (with `--pg-url`, a server where the user may create schemas): the Spider databases
  are copied into one schema each; plain: a kept psycopg connection in autocommit, execute,
  fetchmany; layer 4: `execute_readonly` (pooled, read-only transaction with SET LOCAL timeouts,
  server-side cursor, rollback). Gold queries that fail on plain PostgreSQL (SQLite-only syntax)
  are skipped and counted.
Writes `bench/results/readonly.json`:

    python -m bench readonly [--repeat 5] [--limit N] [--pg-url postgresql+psycopg://...]
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections import defaultdict
from pathlib import Path

ROW_LIMIT = 1000
TIMEOUT_S = 20.0


def add_arguments(p) -> None:
    p.add_argument("--repeat", type=int, default=5, help="runs per query; the median is kept")
    p.add_argument("--limit", type=int, default=None, help="only the first N gold queries")
    p.add_argument("--pg-url", default=None, help="also measure PostgreSQL (the Spider databases are copied there)")
    p.add_argument("--out", default="bench/results/readonly.json")
    p.set_defaults(func=run)


def _median_ms(fn, repeat: int) -> float | None:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            fn()
        except Exception:  # noqa: BLE001 - a gold query the engine cannot run is skipped
            return None
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _fetch(cursor) -> None:
    while cursor.fetchmany(256):
        pass


def _sqlite_plain(path: Path, sql: str) -> None:
    conn = sqlite3.connect(path)
    try:
        cur = conn.execute(sql)
        rows = cur.fetchmany(ROW_LIMIT + 1)
        del rows
    finally:
        conn.close()


def _summary(pairs: list[tuple[float, float]], skipped: int) -> dict:
    plain = [p for p, _ in pairs]
    guarded = [g for _, g in pairs]
    over = [g - p for p, g in pairs]

    def p(values, q):
        return round(statistics.quantiles(values, n=100)[q - 1], 3) if len(values) > 1 else None

    return {
        "queries": len(pairs), "skipped": skipped,
        "plain_median_ms": round(statistics.median(plain), 3), "layer4_median_ms": round(statistics.median(guarded), 3),
        "overhead_median_ms": round(statistics.median(over), 3), "overhead_p90_ms": p(over, 90),
        "plain_p90_ms": p(plain, 90), "layer4_p90_ms": p(guarded, 90),
    }  # fmt: skip


def _measure_sqlite(items, repeat: int) -> dict:
    from wenshu.engines.execute import execute_readonly

    pairs, skipped = [], 0
    for it in items:
        url = f"sqlite:///{it.db_path}"
        plain = _median_ms(lambda: _sqlite_plain(it.db_path, it.gold_sql), repeat)
        guarded = _median_ms(lambda: execute_readonly(url, it.gold_sql, row_limit=ROW_LIMIT, timeout_s=TIMEOUT_S), repeat)
        if plain is None or guarded is None:
            skipped += 1
            continue
        pairs.append((plain, guarded))
    return _summary(pairs, skipped)


def _pg_type(values: list) -> str:
    """A column type that holds every value SQLite stored (Spider's declared types are loose)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "BIGINT"
    if present and all(isinstance(v, (int, float)) for v in present):
        return "DOUBLE PRECISION"
    return "TEXT"


def _copy_to_postgres(dsn: str, db_ids: dict[str, Path]) -> None:
    """Each Spider database into its own schema `spider_<db_id>` (replaced when present)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as pg:
        for db_id, path in db_ids.items():
            schema = f'"spider_{db_id}"'
            pg.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            pg.execute(f"CREATE SCHEMA {schema}")
            src = sqlite3.connect(path)
            src.text_factory = lambda b: b.decode("utf-8", "replace")
            tables = [r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                cur = src.execute(f'SELECT * FROM "{table}"')
                names = [d[0] for d in cur.description]
                rows = [tuple(v.hex() if isinstance(v, bytes) else v for v in r) for r in cur.fetchall()]
                cols = ", ".join(f'"{n.lower()}" {_pg_type([r[i] for r in rows])}' for i, n in enumerate(names))
                pg.execute(f'CREATE TABLE {schema}."{table.lower()}" ({cols})')
                if rows:
                    marks = ", ".join(["%s"] * len(names))
                    with pg.cursor() as c:
                        c.executemany(f'INSERT INTO {schema}."{table.lower()}" VALUES ({marks})',
                                      [tuple(None if v is None else (v if isinstance(v, (int, float)) else str(v))
                                             for v in r) for r in rows])  # fmt: skip
            src.close()


def _measure_postgres(items, repeat: int, pg_url: str) -> dict:
    import psycopg
    import sqlalchemy as sa

    from wenshu.engines.execute import execute_readonly

    by_db = defaultdict(list)
    for it in items:
        by_db[it.db_id].append(it)
    base = sa.make_url(pg_url)
    _copy_to_postgres(base.set(drivername="postgresql").render_as_string(hide_password=False),
                      {db: group[0].db_path for db, group in by_db.items()})  # fmt: skip
    pairs, skipped = [], 0
    for db_id, group in by_db.items():
        url = base.update_query_dict({"options": f"-csearch_path=spider_{db_id}"}).render_as_string(hide_password=False)
        dsn = base.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True, options=f"-csearch_path=spider_{db_id}") as plain_conn:
            for it in group:
                plain = _median_ms(lambda: _fetch(plain_conn.execute(it.gold_sql)), repeat)
                guarded = _median_ms(
                    lambda: execute_readonly(url, it.gold_sql, row_limit=ROW_LIMIT, timeout_s=TIMEOUT_S), repeat
                )
                if plain is None or guarded is None:
                    skipped += 1
                    continue
                pairs.append((plain, guarded))
    return _summary(pairs, skipped)


def run(args) -> int:
    from bench.datasets import resolve_set

    _, items = resolve_set("spider_dev", db_dir=None, tables=None, demo_db=None)
    items = [it for it in items if it.db_path and Path(it.db_path).exists()][: args.limit]
    result = {"command": "python -m bench readonly", "repeat": args.repeat, "row_limit": ROW_LIMIT}
    started = time.perf_counter()
    result["sqlite"] = _measure_sqlite(items, args.repeat)
    print("sqlite", json.dumps(result["sqlite"]))
    if args.pg_url:
        result["postgres"] = _measure_postgres(items, args.repeat, args.pg_url)
        print("postgres", json.dumps(result["postgres"]))
    result["seconds"] = round(time.perf_counter() - started, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0
