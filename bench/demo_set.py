"""The demo question set (src/wenshu/demo/data/gold.yaml) and result comparison against gold SQL."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from importlib.resources import files
from pathlib import Path

import yaml


def load_gold() -> list[dict]:
    text = files("wenshu.demo.data").joinpath("gold.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    return data.get("questions", data) if isinstance(data, dict) else data


def run_sql(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def _norm(v):
    if isinstance(v, float):
        return round(v, 2) if math.isfinite(v) else str(v)
    return v


def same_result(pred: list, gold: list, ordered: bool) -> bool:
    """Rows as multisets (or sequences when the gold SQL orders them); column order ignored; floats rounded."""
    if len(pred) != len(gold):
        return False
    canon = lambda row: tuple(sorted((_norm(v) for v in row), key=repr))  # noqa: E731
    p, g = [canon(r) for r in pred], [canon(r) for r in gold]
    return p == g if ordered else Counter(p) == Counter(g)
