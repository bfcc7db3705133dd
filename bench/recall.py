"""Recall benchmark: does hybrid recall find the tables and columns the gold SQL needs, in how many tokens?

    python -m bench recall [--parts dev,merged,scale,demo] [--limit N] [--budget 1500]

Parts (results in bench/results/recall.json, printed as a table):
- dev: per-database recall on Spider dev (972 questions over 19 DBs): share of questions whose gold
  tables (and gold columns) are all in the recalled block, and block tokens as a share of the full
  schema's. Run twice: the default policy (a schema under the budget is kept whole) and `pruned`
  (the ranking always cuts), which is what a large database gets.
- merged: one catalog of the 19 Spider dev DBs plus the 3 Spider-DK DBs (tables `<db>__<table>`):
  all gold tables in the top 10 (goal >= 95%), block tokens under 25% of the full schema; Spider-dev
  and Spider-DK questions reported apart.
- demo: the demo gold set (Chinese and English questions) on the demo DB, pruned.
- scale: a synthetic 1,000-table x 20-column catalog: index build time (cold: embeds every document;
  warm: a second process, vectors from the app-DB cache), recall latency p50/p95.
Weights and cutoffs are the shipped defaults; nothing is tuned per question.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench import recall_data as rd
from bench.datasets import shared_bench_dir


def add_arguments(p) -> None:
    p.add_argument("--parts", default="dev,merged,demo,scale")
    p.add_argument("--limit", type=int, default=None, help="questions per set (default all)")
    p.add_argument("--budget", type=int, default=1500)
    p.add_argument("--scale-tables", type=int, default=1000)
    p.add_argument("--scale-columns", type=int, default=20)
    p.add_argument("--out", default="bench/results/recall.json")
    p.set_defaults(func=run)


def _recaller(engine, **kw):
    from wenshu.knowledge.hybrid import HybridRecall
    from wenshu.providers.embeddings import USEEmbedder
    from wenshu.storage.vectors import EmbeddingCache, open_vector_index

    embedder = kw.pop("embedder", None) or USEEmbedder()
    return HybridRecall(embedder=embedder, index=open_vector_index(engine), cache=EmbeddingCache(engine),
                        examples=None, k_examples=0, **kw)


def _catalogs(folder: Path) -> dict:
    from wenshu.knowledge.introspect import load_catalog

    out = {}
    for db in sorted(p.name for p in folder.iterdir() if (p / f"{p.name}.sqlite").exists()):
        out[db] = load_catalog(db, f"sqlite:///{folder / db / (db + '.sqlite')}")
    return out


def _score(recaller, items, catalog_of, top: int = 10) -> dict:
    """items: (question, gold sql, db id, gold name prefix)."""
    n = tables_ok = cols_ok = top_ok = 0
    shares, tokens, ms = [], [], []
    for question, sql, db, prefix, *previous in items:
        cat = catalog_of(db)
        gold = rd.gold_of(sql.replace('"', "'"), _gold_view(cat, prefix))
        if gold is None or not gold[0]:
            continue
        g_tables = {prefix + t for t in gold[0]}
        g_cols = {(prefix + t, c) for t, c in gold[1]}
        t0 = time.perf_counter()
        r = recaller.recall(question, cat, previous_sql=previous[0] if previous else None)
        ms.append((time.perf_counter() - t0) * 1000)
        got_tables = {t["name"] for t in r.tables}
        got_cols = {(c["table"], c["column"]) for c in r.columns}
        n += 1
        tables_ok += g_tables <= got_tables
        cols_ok += g_tables <= got_tables and g_cols <= got_cols
        top_ok += g_tables <= {t["name"] for t in r.tables[:top]}
        shares.append(r.tokens / max(1, r.full_schema_tokens))
        tokens.append(r.tokens)
    pct = (lambda x: round(100 * x / n, 1)) if n else (lambda x: 0.0)
    return {"questions": n, "all_gold_tables_pct": pct(tables_ok), "all_gold_tables_and_columns_pct": pct(cols_ok),
            f"gold_tables_in_top{top}_pct": pct(top_ok),
            "block_share_of_full_pct_mean": round(100 * statistics.mean(shares), 1) if shares else 0.0,
            "block_tokens_mean": round(statistics.mean(tokens), 1) if tokens else 0.0,
            "latency_ms_p50": round(statistics.median(ms), 2) if ms else 0.0}


_VIEWS: dict = {}


def _gold_view(cat, prefix: str):
    """Gold SQL names the original tables; for a merged catalog, look at one database's slice unprefixed."""
    if not prefix:
        return cat
    key = (id(cat), prefix)
    if key not in _VIEWS:
        from wenshu.catalog import Catalog

        view = Catalog(cat.datasource, cat.dialect)
        view.tables = [t for t in cat.tables if t.name.startswith(prefix)]
        import dataclasses

        view.tables = [dataclasses.replace(t, name=t.name[len(prefix):]) for t in view.tables]
        _VIEWS[key] = view
    return _VIEWS[key]


def _spider_items(limit):
    base = shared_bench_dir()
    dev = [(q["question"], q["query"], q["db_id"]) for q in json.loads((base / "spider_dev" / "dev.json").read_text())]
    dk = [(q["question"], q["query"], q["db_id"]) for q in json.loads((base / "spider_dk" / "Spider-DK.json").read_text())]
    return dev[:limit] if limit else dev, dk[:limit] if limit else dk


def part_dev(engine, args, cats) -> dict:
    dev, _ = _spider_items(args.limit)
    items = [(q, s, db, "") for q, s, db in dev if db in cats]
    out = {}
    for policy, keep in (("default", True), ("pruned", False)):
        r = _recaller(engine, budget=args.budget, keep_small=keep)
        out[policy] = _score(r, items, cats.__getitem__)
    return out


def part_merged(engine, args, cats, dk_cats) -> dict:
    dev, dk = _spider_items(args.limit)
    merged = rd.merged_catalog({**cats, **dk_cats})
    r = _recaller(engine, budget=args.budget)
    t0 = time.perf_counter()
    r.index_for(merged)
    build_s = time.perf_counter() - t0
    everything = {**cats, **dk_cats}
    out = {"tables": len(merged.tables), "columns": sum(len(t.columns) for t in merged.tables),
           "index_build_s": round(build_s, 2)}
    out["spider_dev"] = _score(r, [(q, s, db, db + rd.SEP) for q, s, db in dev if db in everything], lambda _: merged)
    out["spider_dk"] = _score(r, [(q, s, db, db + rd.SEP) for q, s, db in dk if db in everything], lambda _: merged)
    return out


def _demo_glossary():
    """The glossary the demo datasource ships with (product configuration, not tuned for this benchmark)."""
    from importlib.resources import files

    from wenshu.knowledge.glossary import Glossary, parse_yaml

    path = files("wenshu.demo.data").joinpath("glossary.yaml")
    return Glossary(parse_yaml(path.read_text(encoding="utf-8"))) if path.is_file() else None


def part_demo(engine, args) -> dict:
    """The demo gold set; a follow-up gets its first turn's gold SQL as the previous SQL, as in the agent."""
    from datetime import date

    from bench.demo_set import load_gold
    from wenshu.demo.generate import build_demo_db
    from wenshu.knowledge.introspect import load_catalog

    path = build_demo_db(Path(tempfile.mkdtemp(prefix="wenshu-recall-demo-")) / "demo.sqlite", end_date=date.today())
    cat = load_catalog("demo", f"sqlite:///{path}")
    gold = load_gold()[: args.limit] if args.limit else load_gold()
    sql_of = {g["id"]: g["sql"] for g in gold}
    out = {}
    for label, glossary in (("", None), ("+glossary", _demo_glossary())):
        r = _recaller(engine, budget=args.budget, keep_small=False, glossary=glossary)
        for lang in ("zh", "en"):
            items = [(g["question"], g["sql"], "demo", "", sql_of.get(g.get("followup_of"))) for g in gold
                     if (g.get("lang") or ("zh" if any("\u4e00" <= ch <= "\u9fff" for ch in g["question"]) else "en")) == lang]
            out[lang + label] = _score(r, items, lambda _: cat)
    return out


def part_scale(args, home: Path) -> dict:
    from wenshu.storage.db import make_engine

    cat = rd.synthetic_catalog(args.scale_tables, args.scale_columns)
    questions = rd.synthetic_questions(cat)
    out = {"tables": len(cat.tables), "columns": sum(len(t.columns) for t in cat.tables)}
    for run in ("cold", "warm"):  # warm: a new recall object and engine, same app DB (embedding cache)
        engine = make_engine(f"sqlite:///{home / 'scale.db'}")
        r = _recaller(engine, budget=args.budget)
        t0 = time.perf_counter()
        idx = r.index_for(cat)
        out[f"index_build_{run}_s"] = round(time.perf_counter() - t0, 2)
        out[f"index_stats_{run}"] = idx.stats
        engine.dispose()
    ms = []
    for q in questions:
        t0 = time.perf_counter()
        r.recall(q, cat)
        ms.append((time.perf_counter() - t0) * 1000)
    ms.sort()
    out.update({"questions": len(ms), "latency_ms_p50": round(statistics.median(ms), 2),
                "latency_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 2)})
    return out


def run(args) -> int:
    from wenshu.storage.db import make_engine

    console = Console(width=150)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    home = Path(tempfile.mkdtemp(prefix="wenshu-recall-"))
    engine = make_engine(f"sqlite:///{home / 'app.db'}")
    results: dict = {"budget": args.budget, "limit": args.limit}
    base = shared_bench_dir()
    cats = _catalogs(base / "spider_dev" / "database") if parts & {"dev", "merged"} else {}
    if "dev" in parts:
        results["dev"] = part_dev(engine, args, cats)
    if "merged" in parts:
        results["merged"] = part_merged(engine, args, cats, _catalogs(base / "spider_dk" / "database"))
    if "demo" in parts:
        results["demo"] = part_demo(engine, args)
    if "scale" in parts:
        results["scale"] = part_scale(args, home)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _print(console, results)
    return 0


def _print(console, results: dict) -> None:
    table = Table("part", "questions", "all gold tables %", "tables+columns %", "top-10 %", "block/full %",
                  "tokens", "p50 ms", title=f"Recall (budget {results['budget']} tokens)")
    rows = []
    for policy, r in (results.get("dev") or {}).items():
        rows.append((f"spider dev per-DB ({policy})", r))
    for key in ("spider_dev", "spider_dk"):
        if key in (results.get("merged") or {}):
            rows.append((f"merged catalog: {key}", results["merged"][key]))
    for key, r in (results.get("demo") or {}).items():
        rows.append((f"demo ({key}, pruned)", r))
    for name, r in rows:
        table.add_row(name, str(r["questions"]), str(r["all_gold_tables_pct"]), str(r["all_gold_tables_and_columns_pct"]),
                      str(r["gold_tables_in_top10_pct"]), str(r["block_share_of_full_pct_mean"]),
                      str(r["block_tokens_mean"]), str(r["latency_ms_p50"]))
    console.print(table)
    if "scale" in results:
        s = results["scale"]
        console.print(f"scale: {s['tables']} tables x {s['columns'] // s['tables']} columns: index build "
                      f"{s['index_build_cold_s']} s cold, {s['index_build_warm_s']} s warm; recall p50 "
                      f"{s['latency_ms_p50']} ms, p95 {s['latency_ms_p95']} ms")
    if "merged" in results:
        m = results["merged"]
        console.print(f"merged catalog: {m['tables']} tables, {m['columns']} columns, index build {m['index_build_s']} s")
