"""Where the plan path's wrong answers are: for each question a `bench sql` run answered wrong on the plan
path, which single part of its plan, changed alone, would have made the answer right.

    python -m bench plan_misses --set biz_val --run bench/results/biz_val_X.jsonl [--out FIGURES.json]

The run's records hold the plan that answered (`plan`, recorded since 2026-12-04). Each wrong plan is
changed one part at a time, compiled by the semantic compiler and scored against the gold rows, no model:
another measure in a measure's place (or one dropped or added), another dimension (or one dropped or added),
a filter dropped, replaced or added (one member of a dimension with at most MEMBERS), another time window
(those the resolver reads from common period phrases, or none), another grain, per-period average,
comparison, share, order, or no limit; then, when none of these fixes it, the same plan with its measures'
default filters dropped (`default filter`: gold counts what the model's definition leaves out). A question is counted under every part whose change alone makes it
right; `none` when no single change does (two parts wrong, a filter the plan lacks, or an answer the
semantic model cannot give). With `--pairs SECONDS` such a question is then tried with two changes (counted
as `filter+measure`...; `budget` when the time ran out before any pair was found).

For the questions no change fixed, `unfixed_shape` says how the answer differs from gold's: the same number
of rows and columns (other values: a measure defined otherwise, a bound the plan lacks) or more or fewer of
either; "(those right)" when gold's answer holds the plan's, columns and rows: the question asked for more
than the plan gave. `free_sql_because` counts the questions free SQL answered, right or wrong, by the reason
the plan step gave (recorded since 2026-12-04 as `plan_skipped`). The dates are the day's: run it on the day
the run was made.
Only counts are printed, so a validation or test set can be diagnosed without reading its questions.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Iterator

from bench import datasets
from bench.modes import score
from bench.scoring import QueryFailed, as_codes, contains_result, is_ordered, label_codes, run_sql

# period phrases whose windows are tried in place of the plan's (the resolver reads them; duplicates merge)
PERIODS = ["today", "yesterday", "this week", "last week", "this month", "last month", "this quarter",
           "last quarter", "this year", "last year", "the last 7 days", "the last 14 days", "the last 30 days",
           "the last 90 days", "the last 3 months", "the last 6 months", "the last 12 months", "上周", "上个月",
           "近7天", "近30天", "今年", "去年", "本季度", "上季度"]
GRAINS = [None, "day", "week", "month", "quarter", "year"]
MEMBERS = 12  # a dimension with at most this many members is tried as a filter on each


def add_arguments(p) -> None:
    p.add_argument("--set", required=True, help="the demo-database set the run answered, e.g. biz_val")
    p.add_argument("--run", required=True, help="a bench sql pipeline run's records (.jsonl) that hold plans")
    p.add_argument("--pairs", type=float, default=0, metavar="SECONDS",
                   help="when no single change fixes a plan, try pairs of changes for up to SECONDS per question")
    p.add_argument("--out", help="write the figures as JSON here too")
    p.set_defaults(func=run)


def _windows():
    from wenshu.semantic.windows import plan_window

    seen = {None: None}
    for phrase in PERIODS:
        w = plan_window(phrase)
        if w is not None:
            seen.setdefault((w.start, w.end), w)
    return list(seen.values())


def variants(plan, model, windows, members) -> Iterator[tuple[str, object]]:
    """(part, plan) for every single change of `plan` this diagnosis tries."""
    def with_(**kw):
        return plan.model_copy(update=kw)

    measures = [e.id for e in [*model.measures, *model.ratios]]
    for i, mid in enumerate(plan.measures):
        order_by = None if plan.order_by == mid else plan.order_by
        for other in measures:
            if other not in plan.measures:
                yield "measure", with_(measures=[*plan.measures[:i], other, *plan.measures[i + 1:]], order_by=order_by)
        if len(plan.measures) > 1:
            yield "measure", with_(measures=[m for m in plan.measures if m != mid], order_by=order_by)
    for other in measures:
        if plan.measures and other not in plan.measures:
            yield "measure", with_(measures=[*plan.measures, other])
    dims = [d.id for d in model.dimensions]
    for i, did in enumerate(plan.dimensions):
        for other in dims:
            if other not in plan.dimensions:
                yield "dimension", with_(dimensions=[*plan.dimensions[:i], other, *plan.dimensions[i + 1:]])
        yield "dimension", with_(dimensions=[d for d in plan.dimensions if d != did])
    for other in dims:
        if other not in plan.dimensions:
            yield "dimension", with_(dimensions=[*plan.dimensions, other])
    for i in range(len(plan.filters)):
        yield "filter", with_(filters=[f for j, f in enumerate(plan.filters) if j != i])
        for other in members:
            yield "filter", with_(filters=[*plan.filters[:i], other, *plan.filters[i + 1:]])
    for other in members:
        yield "filter", with_(filters=[*plan.filters, other])
    for w in windows:
        if w != plan.window:
            yield "window", with_(window=w)
    for g in GRAINS:
        if g != plan.grain:
            yield "grain", with_(grain=g)
    for g in GRAINS:
        if g != plan.per:
            yield "per", with_(per=g)
    for c in ("none", "yoy", "previous", "week"):
        if c != plan.compare:
            yield "compare", with_(compare=c)
    yield "share", with_(share=not plan.share)
    for o in (None, "desc", "asc"):
        if o != plan.order:
            yield "order", with_(order=o)
    if plan.limit is not None:
        yield "limit", with_(limit=None)


def members(model, db: Path) -> list:
    """A filter on one member for every member of a dimension with at most MEMBERS of them (codes by label)."""
    import sqlite3

    from wenshu.semantic.plan import Filter

    out = []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for d in model.dimensions:
            if d.kind == "time":
                continue
            values = list(d.labels) or [v for (v,) in conn.execute(
                f'SELECT DISTINCT "{d.column}" FROM "{d.table}" WHERE "{d.column}" IS NOT NULL LIMIT {MEMBERS + 1}')]
            if len(values) <= MEMBERS:
                out += [Filter(dimension=d.id, values=[v]) for v in values]
    return out


def fixes(record: dict, item, gold: list, model, windows, members) -> set[str]:
    """The parts whose change alone makes this wrong plan's answer right."""
    from wenshu.semantic.compile import compile_plan
    from wenshu.semantic.plan import QueryPlan

    plan = QueryPlan.model_validate(record["plan"])
    found = set()
    for part, changed in variants(plan, model, windows, members):
        if part in found:
            continue
        try:
            sql = compile_plan(model, changed, "sqlite", record.get("lang") or "zh").sql
        except Exception:  # noqa: BLE001 - a change the compiler refuses is no fix
            continue
        if score(item, sql, gold)[0]:
            found.add(part)
    if not found and (unfiltered := _without_default_filters(model, plan)) is not None:
        try:  # the same plan, its measures without their default filter (only paid orders): a definition apart
            sql = compile_plan(unfiltered, plan, "sqlite", record.get("lang") or "zh").sql
            if score(item, sql, gold)[0]:
                found.add("default filter")
        except Exception:  # noqa: BLE001 - not compilable that way: no fix
            pass
    return found


def _without_default_filters(model, plan):
    """`model` with the default filters of the plan's measures (and of its ratios' parts) dropped; None when
    they have none."""
    ratios = {r.id: r for r in model.ratios}
    ids = {p for mid in plan.measures for p in ((ratios[mid].numerator, ratios[mid].denominator) if mid in ratios else (mid,))}
    if not any(m.filter for m in model.measures if m.id in ids):
        return None
    return model.model_copy(update={"measures": [m.model_copy(update={"filter": None}) if m.id in ids else m
                                                 for m in model.measures]})


def pair_fixes(record: dict, item, gold: list, model, windows, members, budget_s: float) -> set[str] | None:
    """When no single change fixes a plan: the pairs of parts (measure+window, ...) whose two changes together
    make it right, tried in the order of `variants` until `budget_s` runs out (None: the budget ran out first)."""
    import time

    from wenshu.semantic.compile import compile_plan
    from wenshu.semantic.plan import QueryPlan

    deadline = time.monotonic() + budget_s
    plan = QueryPlan.model_validate(record["plan"])
    found, tried = set(), set()
    for part, once in variants(plan, model, windows, members):
        for other, twice in variants(once, model, windows, members):
            key = "+".join(sorted((part, other)))
            if other == part or key in found:
                continue
            if time.monotonic() > deadline:
                return found or None
            try:
                sql = compile_plan(model, twice, "sqlite", record.get("lang") or "zh").sql
            except Exception:  # noqa: BLE001 - a change the compiler refuses is no fix
                continue
            if sql not in tried and score(item, sql, gold)[0]:
                found.add(key)
            tried.add(sql)
    return found


def _shape(item, sql: str | None, gold: list) -> str:
    """How an answer no change fixed differs from gold: in rows and columns, or only in values."""
    try:
        rows = run_sql(item.db_path, sql) if sql else []
    except QueryFailed:
        return "error"
    width = lambda rs: len(rs[0]) if rs else 0  # noqa: E731
    cols = "same columns" if width(rows) == width(gold) else ("more columns" if width(rows) > width(gold) else "fewer columns")
    labels = label_codes(item.db_id)
    if cols == "fewer columns" and contains_result(as_codes(gold, labels), as_codes(rows, labels), is_ordered(item.gold_sql)):
        cols += " (those right)"  # gold's answer holds this one: it asks for more than the plan gave
    return f"{'same' if len(rows) == len(gold) else 'other'} rows, {cols}"


def run(args) -> int:
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.semantic.library import bundled_text
    from wenshu.semantic.model import parse_model
    from wenshu.settings import Settings

    if args.set not in datasets.DEMO_SETS:
        raise SystemExit("plan_misses diagnoses the demo database's sets (the ones with a semantic model)")
    settings = Settings(home=Path(tempfile.mkdtemp(prefix="wenshu-bench-")), llm_provider="fake")
    demo_db = ensure_demo(settings, open_store(settings))
    _, items = datasets.resolve_set(args.set, db_dir=None, tables=None, demo_db=demo_db)
    by_id = {i.id: i for i in items}
    model = parse_model(bundled_text("demo"))
    windows, filters = _windows(), members(model, demo_db)
    records = {}
    for line in Path(args.run).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("mode") == "pipeline" and r.get("id") in by_id:
            records[r["id"]] = r  # the last record of a question wins, as in bench sql
    wrong = [r for r in records.values() if r.get("path") == "plan" and r.get("correct") is False]
    # the questions free SQL answered, by the reason the plan step gave (its words up to any detail in brackets)
    skipped = Counter(f"{'right' if r.get('correct') else 'wrong'}: {(r.get('plan_skipped') or 'not recorded').split(' (')[0]}"
                      for r in records.values() if r.get("path") == "sql")
    combos, parts, langs, shapes, no_plan = Counter(), Counter(), Counter(), Counter(), 0
    for r in wrong:
        if not r.get("plan"):
            no_plan += 1
            continue
        item = by_id[r["id"]]
        try:
            gold = run_sql(item.db_path, item.gold_sql)
        except QueryFailed:
            continue
        found = fixes(r, item, gold, model, windows, filters)
        if not found and args.pairs:
            pairs = pair_fixes(r, item, gold, model, windows, filters, args.pairs)
            found = pairs if pairs is not None else {"budget"}
        if not found or found == {"budget"}:  # what differs, in shape, between this plan's answer and gold's
            shapes[_shape(item, r.get("pred_sql"), gold)] += 1
        combos[" | ".join(sorted(found)) or "none"] += 1
        parts.update(found or {"none"})
        langs[f"{r.get('lang')}:{' | '.join(sorted(found)) or 'none'}"] += 1
    figures = {"set": args.set, "run": args.run, "answered": len(records), "wrong_on_plan_path": len(wrong),
               "without_recorded_plan": no_plan, "fixed_by_part": dict(parts.most_common()),
               "fixed_by_parts": dict(combos.most_common()), "by_language": dict(sorted(langs.items())),
               "unfixed_shape": dict(shapes.most_common()), "free_sql_because": dict(skipped.most_common())}
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0
