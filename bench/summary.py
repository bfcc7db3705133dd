"""Aggregate benchmark records into the results file's `summary` and breakdowns, and print them."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from rich.console import Console
from rich.table import Table

from bench.hardness import BUCKETS


def _pct(hits: int, n: int) -> float | None:
    return round(100 * hits / n, 1) if n else None


def _p90(values: list[float]) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(0.9 * len(values)))], 2)


def scored(records: list[dict]) -> list[dict]:
    """Records that count: the database existed and the gold SQL ran."""
    return [r for r in records if r.get("error_class") not in ("missing_db", "gold_error")]


def summarize(records: list[dict], set_name: str, model: str) -> tuple[list[dict], dict]:
    """(summary rows, one per mode; breakdown per mode)."""
    by_mode: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_mode[r["mode"]].append(r)
    rows, breakdown = [], {}
    for mode in sorted(by_mode):
        all_records = by_mode[mode]
        rs = scored(all_records)
        walls = [r["wall_s"] for r in rs if r.get("wall_s") is not None]
        tokens = [r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in rs]
        rows.append({
            "set": set_name, "mode": mode, "model": model, "n": len(rs),
            "accuracy": _pct(sum(r["correct"] for r in rs), len(rs)),
            "median_s": round(statistics.median(walls), 2) if walls else None, "p90_s": _p90(walls),
            "tokens_per_question": round(sum(tokens) / len(tokens)) if tokens else None,
            "lenient_accuracy": _pct(sum(bool(r.get("lenient")) for r in rs), len(rs))
            if any("lenient" in r for r in rs) else None,  # results files from before the lenient score
        })  # fmt: skip
        groups = {
            "hardness": lambda r: r["hardness"], "lang": lambda r: r["lang"],
            "turn": lambda r: "follow-up" if r.get("followup_of") else "first",
            "path": lambda r: r.get("path") or "sql",  # the semantic plan path or free SQL (pipeline mode)
        }
        if any(r.get("split") for r in rs):
            groups["split"] = lambda r: r.get("split") or "-"  # the demo set's dev and test halves
        detail = {}
        for name, key in groups.items():
            buckets: dict[str, list[dict]] = defaultdict(list)
            for r in rs:
                buckets[key(r)].append(r)
            detail[name] = {k: {"n": len(v), "accuracy": _pct(sum(x["correct"] for x in v), len(v))}
                            for k, v in sorted(buckets.items())}  # fmt: skip
        detail["error_classes"] = dict(Counter(r["error_class"] for r in rs).most_common())
        detail["not_scored"] = dict(Counter(r["error_class"] for r in all_records if r not in rs))
        detail["retried"] = sum(1 for r in rs if r.get("retries"))
        breakdown[mode] = detail
    return rows, breakdown


def agreement(records: list[dict]) -> dict | None:
    """On the questions both modes scored: how often both, only one, or neither is right (None without
    both modes). `pipeline_only` and `baseline_only` are the shares where they disagree with one right."""
    by = {m: {r["id"]: bool(r["correct"]) for r in scored(records) if r["mode"] == m} for m in ("pipeline", "baseline")}
    ids = sorted(set(by["pipeline"]) & set(by["baseline"]))
    if not ids:
        return None
    count = Counter((by["pipeline"][i], by["baseline"][i]) for i in ids)
    n = len(ids)
    out = {"n": n, "both_right": count[(True, True)], "pipeline_only": count[(True, False)],
           "baseline_only": count[(False, True)], "both_wrong": count[(False, False)]}
    out["pipeline_only_pct"], out["baseline_only_pct"] = _pct(out["pipeline_only"], n), _pct(out["baseline_only"], n)
    return out


def print_tables(summary: list[dict], breakdown: dict, console: Console | None = None) -> None:
    console = console or Console()
    table = Table("set", "mode", "model", "n", "accuracy %", "lenient %", "median s", "p90 s", "tokens/q",
                  title="Execution accuracy (lenient: extra columns allowed)")
    for row in summary:
        table.add_row(*(str(row.get(k)) for k in ("set", "mode", "model", "n", "accuracy", "lenient_accuracy",
                                                  "median_s", "p90_s", "tokens_per_question")))  # fmt: skip
    console.print(table)
    modes = list(breakdown)
    by_bucket = Table("bucket", *modes, title="Accuracy by difficulty (n, %)")
    buckets = [b for b in (*BUCKETS, "unknown") if any(b in breakdown[m]["hardness"] for m in modes)]
    for b in buckets:
        cells = []
        for m in modes:
            cell = breakdown[m]["hardness"].get(b)
            cells.append(f"{cell['n']}: {cell['accuracy']}" if cell else "-")
        by_bucket.add_row(b, *cells)
    console.print(by_bucket)
    for group, title in (("split", "Accuracy by half of the demo set (n, %)"), ("path", "Accuracy by path (n, %)")):
        keys = sorted({k for m in modes for k in breakdown[m].get(group, {})})
        if len(keys) > 1 or group == "split" and keys:
            part = Table(group, *modes, title=title)
            for k in keys:
                cells = [breakdown[m].get(group, {}).get(k) for m in modes]
                part.add_row(k, *(f"{c['n']}: {c['accuracy']}" if c else "-" for c in cells))
            console.print(part)
    errors = Table("error class", *modes, title="Where the wrong answers come from")
    classes = sorted({c for m in modes for c in breakdown[m]["error_classes"]})
    for c in classes:
        errors.add_row(c, *(str(breakdown[m]["error_classes"].get(c, 0)) for m in modes))
    console.print(errors)
    for m in modes:
        skipped = breakdown[m]["not_scored"]
        if skipped:
            console.print(f"{m}: not scored: " + ", ".join(f"{k} {v}" for k, v in skipped.items()))
