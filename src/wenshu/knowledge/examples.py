"""Few-shot examples: question <-> SQL pairs per datasource, retrieved by question similarity.

`ExampleSource` is the interface; `BundledExamples` serves the YAML files that ship with the package
(the demo datasource's library). The app-store library with approval of learned pairs implements the
same interface later.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from typing import Protocol

import yaml

_WORD = re.compile(r"[a-z0-9_]+")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
BUNDLED = {"demo": ("wenshu.demo.data", "examples.yaml")}


def features(text: str) -> set[str]:
    """Lower-cased words plus CJK character bigrams (and single characters of one-character runs)."""
    low = text.lower()
    out = set(_WORD.findall(low))
    for run in _CJK.findall(low):
        out.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    return out


def similarity(a: str, b: str) -> float:
    fa, fb = features(a), features(b)
    if not fa or not fb:
        return 0.0
    return len(fa & fb) / (len(fa | fb) ** 0.5 * len(fa) ** 0.5)


class ExampleSource(Protocol):
    def similar(self, datasource: str, question: str, k: int = 3) -> list[dict]: ...


@lru_cache(maxsize=None)
def _load(package: str, name: str) -> tuple[dict, ...]:
    data = yaml.safe_load(files(package).joinpath(name).read_text(encoding="utf-8")) or []
    items = data.get("examples", data) if isinstance(data, dict) else data
    return tuple({"question": e["question"], "sql": e["sql"].strip(), "query_type": e.get("query_type")}
                 for e in items)


class BundledExamples:
    def __init__(self, sources: dict[str, tuple[str, str]] | None = None):
        self.sources = BUNDLED if sources is None else sources

    def all(self, datasource: str) -> list[dict]:
        src = self.sources.get(datasource)
        return list(_load(*src)) if src else []

    def similar(self, datasource: str, question: str, k: int = 3) -> list[dict]:
        scored = [(similarity(question, e["question"]), i, e) for i, e in enumerate(self.all(datasource))]
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [e for score, _, e in scored[:k] if score > 0]
