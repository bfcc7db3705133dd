"""The knowledge base in the assistant: the `search_documents` tool, the documents line of the system
prompt, the routing hint, and the citations the host attaches after the answer.

The tool hands the model numbered passages with their document and section, as data (the graph fences
every result). It records what it returned, and after the final answer the host turns those passages
into citations (document, section, page, passage): the model never has to write sources itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from wenshu.assistant.state import Citation
from wenshu.assistant.tools import Tool, text_params
from wenshu.kb.followup import rewrite
from wenshu.kb.library import DEFAULT_COLLECTION
from wenshu.knowledge.tokenize import tokens
from wenshu.prompts import render

MAX_PASSAGES = 5
MAX_DOCUMENTS = 20  # listed in the system prompt
SUMMARY_CHARS = 200
MAX_CITATIONS = 3
STRONG_SIMILARITY = 0.4  # a passage this close to the request (or holding this much of its words) makes the
STRONG_COVERAGE = 0.6  # request a documents question: the agent route, not straight to the data pipeline
NOT_FOUND = "Not in the documents: no passage answers this. Say so plainly; do not guess."


def search_documents_tool(kb, collection: str, found: list, earlier: tuple[str, ...] = ()) -> Tool:
    """Search the collection; every passage returned is appended to `found` for the citations. A follow-up
    query is searched as rewritten with the conversation's earlier questions (kb/followup.py)."""

    def run(args: dict) -> str:
        result = kb.search(rewrite(args["query"], earlier), collection, k=MAX_PASSAGES)
        if not result.found:
            return NOT_FOUND
        found.extend(result.passages)
        return "\n\n".join(f"[{n}] {p.document}" + (f" · {p.where}" if p.where else "") + f"\n{p.text}"
                           for n, p in enumerate(result.passages, 1))

    return Tool("search_documents", "Search the uploaded documents (policies, handbooks, plans, manuals) for passages "
                "that answer a question. 检索知识库文档。",
                text_params(query="what to look for, as a full question in the user's words"), run)  # fmt: skip


def documents_context(kb, collection: str) -> str:
    """The system prompt's line about the documents: each one's title and summary (once it has one)."""
    docs = [d for d in kb.list(collection) if d.searchable]
    lines = [f"- {d.title or d.name}" + (f": {' '.join(d.summary.split())[:SUMMARY_CHARS]}" if d.summary else "")
             for d in docs[:MAX_DOCUMENTS]]
    if len(docs) > MAX_DOCUMENTS:
        lines.append(f"- … and {len(docs) - MAX_DOCUMENTS} more")
    return render("kb_context", documents="\n".join(lines)).strip()


def is_documents_question(kb, collection: str, request: str) -> bool:
    """Whether a passage matches the request strongly, or the request names a document by its title (routing:
    the agent may then search the documents)."""
    if names_a_document([d for d in kb.list(collection) if d.searchable], request):
        return True
    top = kb.search(request, collection, k=1).passages
    return bool(top) and (top[0].similarity >= STRONG_SIMILARITY or top[0].coverage >= STRONG_COVERAGE)


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
    reads as a documents question, and the passages the tool returns (filled while the graph runs)."""

    tools: list[Tool] = field(default_factory=list)
    context: str = ""
    strong: bool = False
    passages: list = field(default_factory=list)


def open_documents(settings, engine, embedder):
    """The knowledge base the assistant searches, or None (no embedder: it cannot search)."""
    if embedder is None:
        return None
    from wenshu.kb.library import open_knowledge_base

    return open_knowledge_base(settings, engine, embedder=embedder)


def offer_documents(kb, request: str, collection: str = DEFAULT_COLLECTION, earlier: tuple[str, ...] = ()
                    ) -> DocumentsOffer:
    """Nothing when the collection holds no searchable document; else the tool, context line and hint.
    `earlier`: the conversation's earlier user questions, oldest first (a follow-up is read with them)."""
    if kb is None or not kb.has_documents(collection):
        return DocumentsOffer()
    offer = DocumentsOffer(context=documents_context(kb, collection),
                           strong=is_documents_question(kb, collection, rewrite(request, earlier)))
    offer.tools.append(search_documents_tool(kb, collection, offer.passages, tuple(earlier)))
    return offer


def citations(passages: list, answer: str) -> list[Citation]:
    """The passages behind the answer: those sharing words with it (or, when none does, the best ones),
    once each, in the order the tool returned them."""
    unique = list({p.chunk_id: p for p in passages}.values())
    said = set(tokens(answer))
    used = [p for p in unique if said & set(tokens(p.text))] or unique
    return [Citation(document=p.document, document_id=p.document_id, chunk_id=p.chunk_id, section=p.heading,
                     page=p.page, passage=p.text) for p in used[:MAX_CITATIONS]]
