"""The knowledge base in the assistant: the `search_documents` tool, the documents line of the system
prompt, the routing hint, and the citations the host attaches after the answer.

The tool hands the model numbered passages with their document and section, as data (the graph fences
every result). It records what it returned, and after the final answer the host turns those passages
into citations (document, section, page, passage): the model never has to write sources itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import NamedTuple

from wenshu.assistant.state import Citation
from wenshu.assistant.tools import Tool, text_params
from wenshu.kb.errors import KbNothingFound
from wenshu.kb.followup import rewrite
from wenshu.kb.library import DEFAULT_COLLECTION
from wenshu.kb.sentences import closest_sentences
from wenshu.knowledge.tokenize import tokens
from wenshu.prompts import render

MAX_PASSAGES = 3  # as grounded as five on dev2, more on val and faster (docs/kb.md)
SEARCH_DEPTH = 5  # passages each search (request, query, translation) offers before they are ranked together
MAX_DOCUMENTS = 20  # listed in the system prompt
SUMMARY_CHARS = 200
MAX_CITATIONS = 3
MIN_CLOSENESS = 0.3  # an answer this close to a passage sharing no word with it (another language) may cite it
STRONG_SIMILARITY = 0.4  # a passage this close to the request (or holding this much of its words) makes the
STRONG_COVERAGE = 0.6  # request a documents question: the agent route, not straight to the data pipeline
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")
NOT_FOUND = render("kb_not_found").strip()  # the tool's result when no passage comes back


def search_both(kb, collection: str, query: str, request: str, earlier: tuple[str, ...] = (),
                translated: str = "") -> list:
    """The passages for the user's own request, the model's query and the request in the other language, best
    first by how close each is to any of them (`closest`): a small model's query often drops the words that find
    the passage ("年假" for "第一年有几天年假"), and a passage in the other language shares no keyword with it."""
    lists = [kb.search(rewrite(q, earlier), collection, k=SEARCH_DEPTH).passages
             for q in dict.fromkeys(q for q in (request, query, translated) if q)]
    return closest(lists)[:MAX_PASSAGES]


def closest(lists: list[list]) -> list:
    """Passages of several searches, once each, ordered by their best closeness to a search's query: dense
    cosine plus the share of the query's words the passage holds (kb.search.Passage), ties in the order found.
    The searches' own fused ranks are not comparable (one search's first passage may be far from the question
    that another finds a close one for): alternating them put the answering passage first in 24 of 40
    development questions, this order in 33 (`bench kb --translate`, docs/kb.md)."""
    best: dict[str, tuple[float, object]] = {}
    for p in (p for row in zip_longest(*lists) for p in row if p is not None):
        if p.chunk_id not in best or p.similarity + p.coverage > best[p.chunk_id][0]:
            best[p.chunk_id] = (p.similarity + p.coverage, p)
    return [p for _, p in sorted(best.values(), key=lambda sp: -sp[0])]


def search_documents_tool(kb, collection: str, found: list, earlier: tuple[str, ...] = (), request: str = "",
                          translate: Callable[[str], str] | None = None, key_sentences: int = 0) -> Tool:
    """Search the collection for the model's query and the request it answers (search_both), and for the
    request in the other language when `translate` is given (kb/crosslingual.py); every passage returned is
    appended to `found` for the citations. A follow-up is searched as rewritten with the conversation's
    earlier questions (kb/followup.py). `key_sentences`: after the passages, name that many of their
    sentences closest to the request, its translation and the query (kb/sentences.py)."""

    def run(args: dict) -> str:
        translated = translate(request) if translate is not None and request else ""
        passages = search_both(kb, collection, args["query"], request, earlier, translated)
        if not passages:
            return NOT_FOUND
        found.extend(passages)
        shown = "\n\n".join(f"[{n}] {p.document}" + (f" · {p.where}" if p.where else "") + f"\n{p.text}"
                            for n, p in enumerate(passages, 1))
        asked = [rewrite(q, earlier) for q in (request, translated, args["query"]) if q] if key_sentences else []
        key = closest_sentences(getattr(kb, "embedder", None), passages, asked, key_sentences) if asked else []
        lines = "\n".join(f"- {s}" for s in key)
        return shown + ("\n\n" + render("kb_key_sentences", sentences=lines).strip() if key else "")

    return Tool("search_documents", "Search the uploaded documents (policies, handbooks, plans, manuals) for passages "
                "that answer a question. 检索知识库文档。",
                text_params(query="what to look for, as a full question in the user's words"), run)  # fmt: skip


def plain_answer(answer: str, lang: str) -> str:
    """The answer as the user reads it: a model that copied the tool's not-found instruction into its answer
    ("… Say so plainly; do not guess.", or only its first sentence) gets the not-found sentence in the user's
    language instead."""
    return KbNothingFound().message(lang) if says_not_found(answer) else answer


def says_not_found(answer: str) -> bool:
    """Whether the answer is (or copies) the not-found result: it cites nothing."""
    return NOT_FOUND.split(". ")[0] in answer


def echoes(answer: str, request: str, passages: list) -> bool:
    """Whether an answer from passages only says the question back ("降价了可以补差价吗" → "是的，降价了可以补差价。"):
    at least half of its words are the question's, and it adds no word or number of the passages beyond them."""
    said, asked = set(tokens(answer)), set(tokens(request))
    if not passages or not said or len(said & asked) * 2 < len(said):
        return False
    held = {t for p in passages for t in tokens(p.text)}
    figures = set(_NUMBER.findall(_THOUSANDS.sub("", answer))) - set(_NUMBER.findall(request))
    return not (said - asked) & held and not figures


def document_lines(kb, collection: str) -> str:
    """A line per searchable document: its title and summary (once it has one)."""
    docs = [d for d in kb.list(collection) if d.searchable]
    lines = [f"- {d.title or d.name}" + (f": {' '.join(d.summary.split())[:SUMMARY_CHARS]}" if d.summary else "")
             for d in docs[:MAX_DOCUMENTS]]
    if len(docs) > MAX_DOCUMENTS:
        lines.append(f"- … and {len(docs) - MAX_DOCUMENTS} more")
    return "\n".join(lines)


class Match(NamedTuple):
    strong: bool
    found: bool
    nearest: object = None  # the most relevant passage (kb.search.Passage), when it was searched


def documents_match(kb, collection: str, request: str) -> Match:
    """(strong, found, nearest): whether a passage matches the request strongly or the request names a document
    by its title (routing: the agent may then search the documents), whether any passage is relevant at all
    (search's own floor), and the most relevant one (None when the title decided or nothing is relevant)."""
    if names_a_document([d for d in kb.list(collection) if d.searchable], request):
        return Match(True, True)
    top = kb.search(request, collection, k=1).passages
    strong = bool(top) and (top[0].similarity >= STRONG_SIMILARITY or top[0].coverage >= STRONG_COVERAGE)
    return Match(strong, bool(top), top[0] if top else None)


_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{3,}")
_WORDS_RUN = re.compile(r"[A-Za-z][A-Za-z'&]*(?:[ -][A-Za-z][A-Za-z'&]*)+")


def title_parts(doc) -> list[str]:
    """A document's title (else its file name without the extension) in the parts a request may name it by:
    each run of three Chinese characters or more, each run of two English words or more."""
    text = doc.title or Path(doc.name).stem.replace("_", " ").replace("-", " ")
    return _CJK_RUN.findall(text) + [m.replace("-", " ") for m in _WORDS_RUN.findall(text)]


def names_a_document(docs, request: str) -> bool:
    """Whether the request names one of the documents ("按照差旅报销制度…", "what does the refund policy say")."""
    low = " ".join(request.replace("-", " ").split()).casefold()
    return any(re.search(rf"(?<![a-z]){re.escape(p.casefold())}(?![a-z])", low) for d in docs for p in title_parts(d))


@dataclass
class DocumentsOffer:
    """What the knowledge base adds to one request: the tool, the system prompt's line, whether the request
    reads as a documents question (`strong`) or a passage is relevant to it at all (`found`), and the passages
    the tool returns (filled while the graph runs)."""

    tools: list[Tool] = field(default_factory=list)
    context: str = ""
    strong: bool = False
    found: bool = False
    passages: list = field(default_factory=list)
    listing: str = ""  # a line per document (`document_lines`)
    nearest: object = None  # the passage most relevant to the request (`documents_match`), or None


def open_documents(settings, engine, embedder):
    """The knowledge base the assistant searches, or None (no embedder: it cannot search)."""
    if embedder is None:
        return None
    from wenshu.kb.library import open_knowledge_base

    return open_knowledge_base(settings, engine, embedder=embedder)


def offer_documents(kb, request: str, collection: str = DEFAULT_COLLECTION, earlier: tuple[str, ...] = (),
                    translate: Callable[[str], str] | None = None, key_sentences: int = 0) -> DocumentsOffer:
    """Nothing when the collection holds no searchable document; else the tool, context line and hint.
    `earlier`: the conversation's earlier user questions, oldest first (a follow-up is read with them);
    `translate`: the request into the other language, for the search (kb/crosslingual.py); `key_sentences`:
    how many of the passages' closest sentences the tool names after them (0: none)."""
    if kb is None or not kb.has_documents(collection):
        return DocumentsOffer()
    match = documents_match(kb, collection, rewrite(request, earlier))
    listing = document_lines(kb, collection)
    offer = DocumentsOffer(context=render("kb_context", documents=listing).strip(), strong=match.strong,
                           found=match.found, listing=listing, nearest=match.nearest)
    offer.tools.append(search_documents_tool(kb, collection, offer.passages, tuple(earlier), request, translate,
                                             key_sentences))
    return offer


def support(text: str, words: set[str], numbers: set[str]) -> int:
    """How much of an answer a passage backs: the answer's words it holds, its numbers counting thrice."""
    return len(words & set(tokens(text))) + 3 * len(numbers & set(_NUMBER.findall(_THOUSANDS.sub("", text))))


def closeness(embedder, answer: str, texts: list[str]) -> list[float]:
    """Each passage's cosine with the answer through the embedder (multilingual: an English answer to a Chinese
    passage still meets it); zeros without one."""
    if embedder is None or not texts:
        return [0.0] * len(texts)
    vectors = embedder.embed([answer, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]


def citations(passages: list, answer: str, embedder=None) -> list[Citation]:
    """The passages behind the answer, most supporting first (ties in the order the tool returned them), once
    each: a passage's cosine with the answer (the embedder) plus half its share of the best word support
    (shared words, numbers thrice). A passage with neither words in common nor a cosine of `MIN_CLOSENESS` is
    left out; when every one is, the best ones are cited."""
    unique = list({p.chunk_id: p for p in passages}.values())
    words, numbers = set(tokens(answer)), set(_NUMBER.findall(_THOUSANDS.sub("", answer)))
    backed = [support(p.text, words, numbers) for p in unique]
    near = closeness(embedder, answer, [p.text for p in unique])
    best = max(backed, default=0) or 1
    scored = sorted(range(len(unique)), key=lambda i: (-(near[i] + 0.5 * backed[i] / best), i))
    used = [unique[i] for i in scored if backed[i] > 0 or near[i] >= MIN_CLOSENESS] or [unique[i] for i in scored]
    return [Citation(document=p.document, document_id=p.document_id, chunk_id=p.chunk_id, section=p.heading,
                     page=p.page, passage=p.text) for p in used[:MAX_CITATIONS]]
