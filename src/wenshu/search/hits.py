"""Search results as `SearchHit`s, read from what a search tool returns: Tavily's JSON (`{"results":
[{"url", "title", "content"}]}`), a plain list of such objects, or Tavily MCP's text blocks
(`Title: …`, `URL: …`, `Content: …`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

_FIELD = re.compile(r"^(title|url|content|snippet|description)\s*:\s*(.*)$", re.I)


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str
    content: str

    def key(self) -> str:
        """What makes two hits the same page: the URL without case, fragment or trailing slash, else the
        title plus the first 50 characters of the content."""
        if self.url:
            parts = urlsplit(self.url.strip())
            return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, ""))
        return f"{self.title.strip().lower()}\x00{' '.join(self.content.split())[:50].lower()}"


def _from_dict(d: dict) -> SearchHit | None:
    url = str(d.get("url") or d.get("link") or d.get("href") or "")
    title = str(d.get("title") or d.get("name") or "")
    content = str(d.get("content") or d.get("snippet") or d.get("description") or d.get("body") or "")
    return SearchHit(url, title, content) if (url or title or content) else None


def _from_text(text: str) -> list[SearchHit]:
    hits, current = [], {}
    for line in text.splitlines():
        m = _FIELD.match(line.strip())
        if not m:
            if current and line.strip():
                current["content"] = (current.get("content", "") + " " + line.strip()).strip()
            continue
        key = m.group(1).lower()
        key = "content" if key in ("snippet", "description") else key
        if key in current:  # a new result starts
            hits.append(current)
            current = {}
        current[key] = m.group(2).strip()
    if current:
        hits.append(current)
    return [h for h in (_from_dict(d) for d in hits) if h is not None]


def parse_hits(text: str) -> list[SearchHit]:
    try:
        data = json.loads(text)
    except ValueError:
        return _from_text(text)
    if isinstance(data, dict):
        data = data.get("results") or data.get("items") or []
    return [h for h in (_from_dict(d) for d in data if isinstance(d, dict)) if h is not None] \
        if isinstance(data, list) else []
