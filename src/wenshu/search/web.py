"""Web search: a provider interface, the default provider (a Tavily-compatible search tool of a configured
MCP server), and `WebSearch`, which expands a query into up to three (overview, detail, official
sources), runs them in parallel, and merges the results without duplicates.

The expansion templates live in `prompts/search_expand_<lang>.md` (one per line, `$query` in each).
Results are data for the model, never instructions: the assistant fences them like any tool result.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from wenshu.errors import WenshuError
from wenshu.i18n import detect_lang
from wenshu.prompts import render
from wenshu.search.hits import SearchHit, parse_hits

MAX_QUERIES = 3


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, max_results: int) -> list[SearchHit]: ...


class McpSearch:
    """A search tool of an MCP server (Tavily's `tavily-search`, or any tool taking a `query`)."""

    def __init__(self, hub, tool):
        self.hub, self.tool = hub, tool  # wenshu.mcp.McpHub, wenshu.mcp.client.McpTool
        self.name = tool.qualified

    def search(self, query: str, max_results: int) -> list[SearchHit]:
        args: dict = {"query": query}
        if "max_results" in (self.tool.flat.parameters.get("properties") or {}):
            args["max_results"] = max_results
        return parse_hits(self.hub.call(self.tool, args))


def find_search_tool(tools: Sequence, wanted: str = ""):
    """The MCP tool to search the web with: the one `wanted` names (`server/tool` or `server__tool`), else
    the first whose name ends in "search" and that takes a text `query`; None when there is none."""
    if wanted:
        name = wanted.replace("/", "__")
        return next((t for t in tools if t.qualified == name), None)
    for t in tools:
        props = t.flat.parameters.get("properties") or {}
        if t.name.lower().replace("-", "_").endswith("search") and (props.get("query") or {}).get("type") == "string":
            return t
    return None


def expand(query: str) -> list[str]:
    """The query itself (overview), then its detail and official-source variants, in the query's language."""
    query = " ".join(query.split())
    lang = "zh" if detect_lang(query) == "zh" else "en"
    variants = [line.strip() for line in render(f"search_expand_{lang}", query=query).splitlines() if line.strip()]
    return list(dict.fromkeys([query, *variants]))[:MAX_QUERIES]


class WebSearch:
    def __init__(self, provider: SearchProvider, *, max_results: int = 5):
        self.provider, self.max_results = provider, max_results

    def search(self, query: str) -> list[SearchHit]:
        """Every expanded query at once; hits merged in query order, each page once. One query failing
        loses only its hits; all of them failing raises the first error."""
        queries = expand(query)
        with ThreadPoolExecutor(max_workers=len(queries)) as pool:
            futures = [pool.submit(self.provider.search, q, self.max_results) for q in queries]
        merged: dict[str, SearchHit] = {}
        errors: list[Exception] = []
        for future in futures:
            try:
                hits = future.result()
            except WenshuError as err:
                errors.append(err)
                continue
            for hit in hits:
                merged.setdefault(hit.key(), hit)
        if errors and len(errors) == len(futures):
            raise errors[0]
        return list(merged.values())


def format_hits(hits: list[SearchHit], limit: int = 8, chars: int = 400) -> str:
    """Numbered hits for the model: `[1] title - url` and the start of the content."""
    if not hits:
        return "(no results)"
    lines = []
    for i, h in enumerate(hits[:limit], 1):
        content = " ".join(h.content.split())
        lines.append(f"[{i}] {h.title or '(untitled)'} - {h.url or '(no url)'}\n{content[:chars]}")
    return "\n".join(lines)
