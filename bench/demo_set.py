"""The demo question set (src/wenshu/demo/data/gold.yaml) and its dev/test split (gold_split.yaml); the
business questions written later over the same database (bench/data/biz_questions.yaml: dev and val)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import yaml


def _read(name: str):
    return yaml.safe_load(files("wenshu.demo.data").joinpath(name).read_text(encoding="utf-8"))


def load_split() -> dict[str, str]:
    """id -> "dev" | "test", fixed by id (see gold_split.yaml for how the halves were drawn)."""
    return {i: half for half, ids in _read("gold_split.yaml").items() for i in ids}


def load_gold(half: str | None = None) -> list[dict]:
    """The gold items, each with its `split`; only those of one half when `half` is "dev" or "test"."""
    data = _read("gold.yaml")
    items = data.get("questions", data) if isinstance(data, dict) else data
    split = load_split()
    items = [g | {"split": split.get(g["id"])} for g in items]
    return [g for g in items if g["split"] == half] if half else items


DATA = Path(__file__).resolve().parent / "data"


def load_biz(half: str | None = None, name: str = "biz") -> list[dict]:
    """Business questions of `bench/data/{name}_questions.yaml`, each with its `split` ("dev" or "val");
    only one half's when `half` is given."""
    items = yaml.safe_load((DATA / f"{name}_questions.yaml").read_text(encoding="utf-8"))
    return [g for g in items if g["split"] == half] if half else items
