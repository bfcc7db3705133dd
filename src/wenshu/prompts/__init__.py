"""Every prompt template lives in `wenshu/prompts/*.md` and is loaded here by name.

Templates use `$name` placeholders (string.Template), so SQL and JSON braces need no escaping.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from string import Template


@lru_cache(maxsize=None)
def load(name: str) -> Template:
    return Template(files("wenshu.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8"))


def render(name: str, **values: object) -> str:
    return load(name).substitute({k: "" if v is None else str(v) for k, v in values.items()})
