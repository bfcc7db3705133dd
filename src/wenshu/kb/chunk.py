"""Parsed Markdown to chunks: by structure first (headings, pages), then by tokens.

Sections are the text under one heading path ("Refund policy > Exceptions") on one page. A section
longer than the chunk budget is split by langchain-text-splitters' recursive splitter, paragraph, line
and sentence boundaries first, with Chinese sentence marks among the separators, and a little overlap.
A Markdown table split across chunks keeps its header row in every part. Tokens are estimated the same
way the schema block counts them (one per CJK character, one per four other characters).

A chunk's id is `<document id>:<hash>`, the hash over its position and text, so re-ingesting the same
content gives the same ids (resume and reindex rewrite vectors in place).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from wenshu.kb.parse import PAGE
from wenshu.knowledge.schema_block import estimate_tokens

CHUNK_TOKENS = 220
OVERLAP_TOKENS = 30
MIN_TOKENS = 12  # shorter sections are merged into the next one under the same parent heading
SEPARATORS = ["\n\n", "\n", "。", "！", "？", "；", ". ", "! ", "? ", "; ", "，", ", ", " ", ""]
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Section:
    heading: str  # "A > B"
    page: int | None
    text: str


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    heading: str
    page: int | None
    text: str

    def key(self, document_id: str) -> str:
        digest = hashlib.sha256(f"{self.ordinal}\x00{self.heading}\x00{self.text}".encode()).hexdigest()[:24]
        return f"{document_id}:{digest}"


def sections(markdown: str, paged: bool) -> list[Section]:
    """Split by headings (outside code fences) and page breaks; the heading path carries across pages."""
    out: list[Section] = []
    path: list[tuple[int, str]] = []
    for number, page_text in enumerate(markdown.split(PAGE), start=1):
        page = number if paged else None
        buf: list[str] = []
        fenced = False

        def flush() -> None:
            text = "\n".join(buf).strip()
            if text:
                out.append(Section(" > ".join(t for _, t in path), page, text))
            buf.clear()

        for line in page_text.split("\n"):
            if _FENCE.match(line):
                fenced = not fenced
            m = None if fenced else _HEADING.match(line)
            if m is None:
                buf.append(line)
                continue
            flush()
            level = len(m.group(1))
            path[:] = [(lv, t) for lv, t in path if lv < level] + [(level, m.group(2).strip())]
        flush()
    return _merge_small(out)


def _merge_small(items: list[Section]) -> list[Section]:
    """A very short section (a lone line under a heading) joins the next section on the same page."""
    out: list[Section] = []
    carry: Section | None = None
    for s in items:
        if carry is not None:
            if carry.page == s.page:
                label = carry.heading.rsplit(" > ", 1)[-1]
                lead = f"{label}: {carry.text}" if label else carry.text
                s = Section(s.heading, s.page, f"{lead}\n\n{s.text}")
            else:
                out.append(carry)
            carry = None
        if estimate_tokens(s.text) < MIN_TOKENS:
            carry = s
        else:
            out.append(s)
    if carry is not None:
        out.append(carry)
    return out


def _splitter(chunk_tokens: int, overlap: int):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=chunk_tokens, chunk_overlap=overlap, separators=SEPARATORS,
                                          keep_separator="end", length_function=estimate_tokens,
                                          strip_whitespace=True)


def _table_header(text: str) -> str | None:
    """The header and rule lines of the last Markdown table that starts in `text`, if any."""
    lines = text.split("\n")
    for i in range(len(lines) - 1, 0, -1):
        if _TABLE_RULE.match(lines[i].strip()) and lines[i - 1].strip().startswith("|"):
            return lines[i - 1] + "\n" + lines[i]
    return None


def _with_table_headers(parts: list[str]) -> list[str]:
    out: list[str] = []
    header = None
    for part in parts:
        if header and part.lstrip().startswith("|") and not part.lstrip().startswith(header.split("\n")[0]):
            part = header + "\n" + part
        out.append(part)
        header = _table_header(part) or (header if part.rstrip().endswith("|") else None)
    return out


def chunk(markdown: str, *, paged: bool, chunk_tokens: int = CHUNK_TOKENS,
          overlap: int = OVERLAP_TOKENS) -> list[Chunk]:
    splitter = _splitter(chunk_tokens, overlap)
    out: list[Chunk] = []
    for s in sections(markdown, paged):
        if estimate_tokens(s.text) <= chunk_tokens:
            parts = [s.text]
        else:
            parts = _with_table_headers(splitter.split_text(s.text))
        for text in parts:
            if text.strip():
                out.append(Chunk(len(out), s.heading, s.page, text.strip()))
    return out


def embedding_text(title: str, chunk: Chunk) -> str:
    """What is embedded and keyword-indexed for a chunk: the document title and section path give context."""
    head = chunk.heading if chunk.heading.startswith(title) else " > ".join(p for p in (title, chunk.heading) if p)
    return f"{head}\n{chunk.text}" if head else chunk.text
