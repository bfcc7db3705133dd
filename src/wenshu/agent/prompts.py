"""The prompt loader, re-exported for the agent's modules: it lives in the leaf package `wenshu.prompts`
so that capabilities below the agent (the knowledge base's summaries) load their templates the same way."""

from __future__ import annotations

from wenshu.prompts import load, render

__all__ = ["load", "render"]
