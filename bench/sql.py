"""`python -m bench sql`: execution accuracy of the pipeline and of a one-prompt baseline, same model.

    python -m bench sql --set spider_dev_200 --mode both --model embedded --out bench/results/spider_dev_200.json
    python -m bench sql --set demo --mode both --out bench/results/demo.json
    python -m bench sql --set my.json --db-dir my_dbs --tables my_tables.json --limit 50

Predictions are appended to `<out>.jsonl` as they come, so an interrupted run continues where it
stopped when started again with the same arguments (`--fresh` starts over). At the end the results
file holds `summary` (one row per mode), `breakdown` (by difficulty, language, turn, error class)
and every question's record. A missing database, a failing gold SQL or a failing model is recorded
for that question and the run goes on.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench import datasets
from bench.ablation import copied, load_reference, to_rerun
from bench.ablation import summary as ablation_summary
from bench.modes import create_statements, run_baseline, run_pipeline
from bench.scoring import QueryFailed, run_sql
from bench.environment import bench_settings, code_commit
from bench.summary import agreement, print_tables, summarize


def add_arguments(p) -> None:
    p.add_argument("--set", required=True, help="spider_dev_200 (development) | spider_dev_zh (development, "
                   "Chinese) | spider_dk (validation) | spider_dev_test (test) | spider_dev | demo | demo_dev | "
                   "demo_test | biz_dev (development) | biz_val (validation) | biz | biz2, biz3, para_en (development) | "
                   "biz4_dev (development) | biz4_val (validation) | biz4 | biz5, biz6, biz7, biz8, biz9, biz10, biz11, biz12, biz13, biz14 (development) | "
                   "a Spider-format JSON file")
    p.add_argument("--db-dir", help="with a question file: the folder holding <db_id>/<db_id>.sqlite")
    p.add_argument("--tables", help="with a question file: its tables.json (optional)")
    p.add_argument("--limit", type=int, default=None, help="number of questions (default: all)")
    p.add_argument("--ids", help="only these question ids, comma-separated or @FILE with one per line "
                   "(e.g. the questions a change can affect)")
    p.add_argument("--sample", choices=("head", "stratified"), default="head")
    p.add_argument("--seed", type=int, default=0, help="seed of the stratified sample")
    p.add_argument("--mode", choices=("pipeline", "baseline", "both"), default="both")
    p.add_argument("--model", choices=("embedded", "endpoint", "fake"), default="embedded",
                   help="endpoint: any OpenAI-compatible server (--base-url, --model-name); fake: WENSHU_FAKE_SCRIPT")
    p.add_argument("--base-url", default=os.environ.get("WENSHU_LLM_BASE_URL"))
    p.add_argument("--model-name", default=os.environ.get("WENSHU_LLM_MODEL"))
    p.add_argument("--api-key", default=os.environ.get("WENSHU_LLM_API_KEY"))
    p.add_argument("--out", required=True, help="results file, e.g. bench/results/spider_dev_200.json")
    p.add_argument("--candidates", type=int, default=1,
                   help="pipeline: SQL candidates per question; above 1 their results vote (setting sql_candidates)")
    p.add_argument("--rescore", action="store_true",
                   help="score the stored predictions again (after a change of the scoring rules), then continue")
    p.add_argument("--semantic", action="store_true",
                   help="the pipeline tries the semantic model's plan path first (settings.semantic_path)")
    p.add_argument("--layout", choices=("compact", "ddl"), default="compact",
                   help="pipeline: how tables are written in the prompt (setting schema_layout)")
    p.add_argument("--fresh", action="store_true", help="ignore predictions of an earlier run of the same file")
    p.add_argument("--ablate", default="", help="pipeline: accuracy checks to switch off, comma-separated ids "
                   "(wenshu.agent.checks), e.g. per_group,retry")
    p.add_argument("--all-checks", action="store_true", help="switch on every check, also those off by default "
                   "(the configuration the Spider-DK ablation started from)")
    p.add_argument("--with", dest="with_checks", default="", help="pipeline: checks off by default to switch on, "
                   "comma-separated ids, e.g. near_words")
    p.add_argument("--only-fired", metavar="REF", help="with --ablate: ask again only the questions where an ablated "
                   "check fired in the results file REF, copy the rest (bench/ablation.py)")
    p.set_defaults(func=run)


def _items(args, demo_db: Path | None) -> tuple[str, list[datasets.Item]]:
    name, items = datasets.resolve_set(args.set, db_dir=args.db_dir, tables=args.tables, demo_db=demo_db)
    if getattr(args, "ids", None):
        text = Path(args.ids[1:]).read_text() if args.ids.startswith("@") else args.ids
        wanted = {i.strip() for i in text.replace(",", "\n").splitlines() if i.strip()}
        unknown = wanted - {i.id for i in items}
        if unknown:
            raise SystemExit(f"--ids: not in {name}: {', '.join(sorted(unknown))}")
        items = [i for i in items if i.id in wanted]
    if args.sample == "stratified" and args.limit:
        items = datasets.stratified(items, args.limit, args.seed)
    return name, datasets.head(items, args.limit)


def _load_done(path: Path) -> dict[tuple[str, str], dict]:
    done = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
                done[(rec["mode"], rec["id"])] = rec
            except (ValueError, KeyError):
                continue  # a line cut short by an interruption
    return done


def run(args) -> int:
    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store

    console = Console(stderr=True)
    commit = code_commit()  # the code that answers, read before the run (the tree may change during a long one)
    home = Path(tempfile.mkdtemp(prefix="wenshu-bench-"))
    settings, model_label = bench_settings(args, home)
    store = open_store(settings)
    demo_db = ensure_demo(settings, store) if args.set in datasets.DEMO_SETS else None
    set_name, items = _items(args, demo_db)
    for db_id, path in sorted({(i.db_id, i.db_path) for i in items if i.db_path and i.db_id != "demo"}):
        store.datasources.add(db_id, f"sqlite:///{path}")
    agent = Agent(settings, store)
    if args.model == "embedded":
        agent.models().model("strong").llama  # load the model once, before the clock runs
    modes = ["pipeline", "baseline"] if args.mode == "both" else [args.mode]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_suffix(".jsonl")
    if args.fresh and log.exists():
        log.unlink()
    done = _load_done(log)
    by_id = {i.id: i for i in items}
    if args.rescore:
        _rescore(done, by_id, log)
    gold_cache: dict[str, list | str] = {}
    schemas: dict[str, str] = {}
    reference = load_reference(args.only_fired) if args.only_fired else {}
    disabled = settings.disabled_checks
    ablated = [n.strip() for n in (args.ablate or "").split(",") if n.strip()]  # on top of the defaults
    rerun = to_rerun(items, reference, set(ablated)) if reference else {i.id for i in items}
    role = datasets.role_of(set_name)
    if role == "test":
        console.print(f"{set_name} is a test set: report its figures, never read its wrong answers to write a rule.")
    if reference:
        console.print(f"Ablating {', '.join(ablated)}: {len(rerun)} of {len(items)} questions asked again.")
    todo = sum(1 for m in modes for i in items if (m, i.id) not in done)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with log.open("a", encoding="utf-8") as sink, Progress(*columns, console=console) as bar:
        task = bar.add_task(f"{set_name}: {todo} to run", total=todo)
        for mode in modes:
            conversations: dict[str, str | None] = {}
            hits = seen = 0
            for item in items:
                if (mode, item.id) in done:
                    continue
                rec = {"id": item.id, "set": set_name, "mode": mode, "model": model_label, "db_id": item.db_id,
                       "question": item.question, "gold_sql": item.gold_sql, "hardness": item.hardness,
                       "lang": item.lang, "followup_of": item.followup_of, "split": item.split}  # fmt: skip
                if mode == "pipeline" and item.id not in rerun:
                    rec.update({k: v for k, v in copied(reference[item.id]).items() if k not in rec})
                else:
                    rec.update(_answer(mode, item, by_id, agent, schemas, gold_cache, conversations))
                sink.write(json.dumps(rec, ensure_ascii=False) + "\n")
                sink.flush()
                done[(mode, item.id)] = rec
                seen += 1
                hits += bool(rec.get("correct"))
                bar.update(task, advance=1, description=f"{set_name} {mode}: {hits}/{seen} correct")
    records = [done[(m, i.id)] for m in modes for i in items if (m, i.id) in done]
    summary, breakdown = summarize(records, set_name, model_label)
    for row in summary:
        if row["mode"] == "pipeline" and args.candidates > 1:
            row["candidates"] = args.candidates
    command = "python -m bench " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    result = {"summary": summary, "breakdown": breakdown, "agreement": agreement(records), "command": command,
              "commit": commit, "role": role, "disabled_checks": disabled, "schema_layout": settings.schema_layout,
              "questions": records}  # fmt: skip
    if reference:
        result["ablation"] = ablation_summary(reference, records, ablated, rerun)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print_tables(summary, breakdown, Console())
    if result["agreement"]:
        console.print("Pipeline vs baseline on the same questions: " + ", ".join(
            f"{k.replace('_', ' ')} {v}" for k, v in result["agreement"].items()))
    if reference:
        console.print(f"Ablation: {result['ablation']}")
    console.print(f"Results: {out}  (predictions: {log})")
    return 0


def _rescore(done: dict, by_id: dict, log: Path) -> None:
    """Score stored predictions again with the current rules and rewrite the predictions file."""
    from bench.modes import score

    gold: dict[str, list] = {}
    for rec in done.values():
        item = by_id.get(rec["id"])
        if item is None or rec.get("error_class") not in ("ok", "wrong_result"):
            continue  # errors and refusals do not depend on the comparison
        if item.id not in gold:
            gold[item.id] = run_sql(item.db_path, item.gold_sql)
        correct, cls, detail, lenient = score(item, rec.get("pred_sql"), gold[item.id])
        rec.update(correct=correct, error_class=cls, detail=detail, lenient=lenient)
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done.values()), encoding="utf-8")


def _answer(mode, item, by_id, agent, schemas, gold_cache, conversations) -> dict:
    if item.problem or item.db_path is None:
        return {"correct": False, "error_class": "missing_db", "detail": item.problem}
    gold = gold_cache.get(item.id)
    if gold is None:
        try:
            gold = run_sql(item.db_path, item.gold_sql)
        except QueryFailed as err:
            gold = f"{err.kind}: {err}"
        gold_cache[item.id] = gold
    if isinstance(gold, str):
        return {"correct": False, "error_class": "gold_error", "detail": gold}
    first = by_id.get(item.followup_of) if item.followup_of else None
    try:
        if mode == "baseline":
            if item.db_id not in schemas:
                schemas[item.db_id] = create_statements(item.db_path)
            return run_baseline(agent.models, schemas[item.db_id], item, first, gold)
        if first is not None and item.followup_of not in conversations:  # resumed run: replay the first turn
            _, conversations[item.followup_of] = run_pipeline(agent, first, None, [])
        record, cid = run_pipeline(agent, item, conversations.get(item.followup_of) if first else None, gold)
        conversations[item.id] = cid
        return record
    except Exception as err:  # noqa: BLE001 - one question's crash must not end a long run
        return {"correct": False, "error_class": "crash", "detail": f"{type(err).__name__}: {err}"[:300]}
