"""Ablation of the accuracy checks (`wenshu.agent.checks`): what does each one change?

    python -m bench sql --set spider_dk --mode pipeline --out bench/results/spider_dk.json
    python -m bench sql --set spider_dk --mode pipeline --ablate per_group \
        --only-fired bench/results/spider_dk.json --out bench/results/spider_dk_no_per_group.json

Every pipeline record lists the checks that fired on its question (`checks`, from the trace). A check
that did not fire on a question cannot have changed its answer: with greedy decoding, switching it off
leaves that question's run as it was. So `--only-fired REF` asks again only the questions where an
ablated check fired in the reference run (a follow-up goes with its first turn) and copies every other
record from REF (`copied: true`); the set's accuracy without the check is then exact at a fraction of
the time. The results file's `ablation` block says how many questions the check fired on, how many of
those were right with it and without it, and the set's accuracy both ways.
"""

from __future__ import annotations

import json
from pathlib import Path


def fired_checks(trace) -> list[str]:
    """Ids of the checks that fired in a pipeline run, in order, each once."""
    out: list[str] = []
    for step in trace:
        for check in getattr(step, "checks", None) or []:
            if check not in out:
                out.append(check)
    return out


def load_reference(path: str | Path) -> dict[str, dict]:
    """The pipeline records of a results file, by question id."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise SystemExit(f"Cannot read the reference results {path}: {err}") from err
    records = {r["id"]: r for r in data.get("questions", []) if r.get("mode") == "pipeline"}
    if not records:
        raise SystemExit(f"{path} holds no pipeline records to ablate against.")
    if not any("checks" in r for r in records.values()):
        raise SystemExit(f"{path} does not say which checks fired (it predates them): run it again first.")
    return records


def to_rerun(items, reference: dict[str, dict], ablated: set[str]) -> set[str]:
    """Ids of the questions whose run can change when `ablated` are switched off."""
    ids = {i.id for i in items if ablated & set((reference.get(i.id) or {}).get("checks") or [])}
    ids |= {i.id for i in items if i.followup_of in ids}  # the conversation goes on from a changed answer
    ids |= {i.id for i in items if i.id not in reference}  # nothing to copy
    return ids


def copied(record: dict) -> dict:
    return {**record, "copied": True}


def summary(reference: dict[str, dict], records: list[dict], ablated: list[str], rerun: set[str]) -> dict:
    """Accuracy with and without the ablated checks, on the questions they fired on and on the whole set."""
    now = {r["id"]: r for r in records if r.get("mode") == "pipeline"}
    scored = [i for i in now if now[i].get("error_class") not in ("missing_db", "gold_error")]
    fired = [i for i in scored if i in rerun and i in reference]

    def pct(hits: int, n: int) -> float | None:
        return round(100 * hits / n, 1) if n else None

    with_checks = sum(bool(reference[i].get("correct")) for i in scored if i in reference)
    without = sum(bool(now[i].get("correct")) for i in scored)
    return {
        "ablated": ablated, "fired_on": len(fired),
        "correct_with": sum(bool(reference[i].get("correct")) for i in fired),
        "correct_without": sum(bool(now[i].get("correct")) for i in fired),
        "accuracy_with": pct(with_checks, len(scored)), "accuracy_without": pct(without, len(scored)),
        "points": round((with_checks - without) * 100 / len(scored), 1) if scored else None,
    }  # fmt: skip
