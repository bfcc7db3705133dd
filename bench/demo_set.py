"""The demo question set (src/wenshu/demo/data/gold.yaml)."""

from __future__ import annotations

from importlib.resources import files

import yaml


def load_gold() -> list[dict]:
    text = files("wenshu.demo.data").joinpath("gold.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    return data.get("questions", data) if isinstance(data, dict) else data
