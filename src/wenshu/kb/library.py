"""The knowledge base as the channels use it: add, list, find, remove, reindex, search, summarize.

    kb = open_knowledge_base(settings, store.engine)
    results = kb.add([Path("handbook.pdf")], progress=bar)
    kb.search("退款多久到账").passages

Each operation is one of the small parts (ingest.Ingestor, search.Searcher, summarize.Summarizer) over
the same document table and vector index; this class only wires them and answers by reference.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from sqlalchemy.engine import Engine

from wenshu.kb.errors import KbNoEmbedder, KbNotFound
from wenshu.kb.ingest import AddResult, Hooks, Ingestor, Progress, namespace
from wenshu.kb.parse import FORMATS
from wenshu.kb.search import Searcher, SearchResult
from wenshu.kb.summarize import Summarizer
from wenshu.storage.kb_store import SEARCHABLE, UNFINISHED, KbDocument, KbDocuments

DEFAULT_COLLECTION = "default"
ORPHAN_FILE_AGE_S = 3600  # a kept file no document names, older than this, is swept by reindex


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the files of a folder (recursively, supported formats only, hidden ones skipped)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in FORMATS
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append(p)
    return out


class KnowledgeBase:
    def __init__(self, engine: Engine, *, embedder, index, files_dir: Path, max_bytes: int, summaries: bool = True,
                 hooks: Hooks | None = None):
        if embedder is None:
            raise KbNoEmbedder()
        self.docs = KbDocuments(engine)
        self.ingestor = Ingestor(self.docs, embedder, index, Path(files_dir), max_bytes, summaries, hooks or Hooks())
        self.searcher = Searcher(self.docs, embedder, index)
        self.index = index
        self.embedder = embedder

    # -- documents ---------------------------------------------------------------------------------
    def add(self, paths: Iterable[Path], collection: str = DEFAULT_COLLECTION,
            progress: Progress | None = None) -> list[AddResult]:
        """Add files and folders; each file gets its own result (added, resumed, duplicate or error)."""
        files = expand_paths(paths)
        results = []
        for n, path in enumerate(files):
            if progress:
                progress("files", n, len(files))
            results.append(self.ingestor.add_file(path, collection, progress))
        if progress:
            progress("files", len(files), len(files))
        return results

    def add_bytes(self, name: str, data: bytes, collection: str = DEFAULT_COLLECTION, *,
                  source: str | None = None) -> AddResult:
        return self.ingestor.add_bytes(name, data, collection, source=source or f"upload:{name}")

    def admit(self, name: str, data: bytes, collection: str = DEFAULT_COLLECTION) -> AddResult:
        """An upload checked, kept and given a row, to be ingested later (`ingest`); see Ingestor.admit."""
        return self.ingestor.admit(name, data, collection, source=f"upload:{name}")

    def ingest(self, doc: KbDocument, progress: Progress | None = None) -> AddResult:
        """Run or resume one document's ingest (an admitted upload, or one a crash left unfinished)."""
        return self.ingestor.ingest(doc, progress)

    def list(self, collection: str | None = None) -> list[KbDocument]:
        return self.docs.list(collection)

    def has_documents(self, collection: str = DEFAULT_COLLECTION) -> bool:
        return self.docs.signature(collection)[0] > 0

    def find(self, ref: str, collection: str | None = None) -> KbDocument:
        """A document by id, unique id prefix (4+ characters) or file name."""
        docs = self.docs.list(collection)
        hits = [d for d in docs if d.id == ref] or [d for d in docs if d.name == ref]
        if not hits and len(ref) >= 4:
            hits = [d for d in docs if d.id.startswith(ref)]
        if len(hits) != 1:
            raise KbNotFound(ref)
        return hits[0]

    def remove(self, ref: str, collection: str | None = None) -> KbDocument:
        doc = self.find(ref, collection)
        self.ingestor.remove(doc)
        return doc

    def chunks(self, doc: KbDocument):
        return self.docs.chunks_of(doc.id)

    # -- maintenance -------------------------------------------------------------------------------
    def reindex(self, collection: str | None = None, *, everything: bool = False,
                progress: Progress | None = None) -> list[AddResult]:
        """Resume every unfinished document (or redo all of them) and sweep vectors no document owns."""
        statuses = None if everything else UNFINISHED
        results = [self.ingestor.ingest(d, progress) for d in self.docs.list(collection, statuses)]
        for name in [collection] if collection else sorted({DEFAULT_COLLECTION, *self.docs.collections()}):
            self.sweep(name)
        return results

    def sweep(self, collection: str) -> int:
        """Delete vectors of documents that no longer exist, and of published documents' old chunks."""
        docs = {d.id: d for d in self.docs.list(collection)}
        live = {c.id for c in self.docs.searchable_chunks(collection)}
        stale = []
        for vector_id in self.index.hashes(namespace(collection)):
            doc = docs.get(vector_id.split(":", 1)[0])
            if doc is None or (doc.status in SEARCHABLE and vector_id not in live):
                stale.append(vector_id)
        if stale:
            self.index.delete(namespace(collection), stale)
        self._sweep_files({d.path for d in self.docs.list()})
        return len(stale)

    def _sweep_files(self, named: set[str]) -> None:
        files_dir = self.ingestor.files_dir
        if not files_dir.is_dir():
            return
        cutoff = time.time() - ORPHAN_FILE_AGE_S
        for f in files_dir.iterdir():
            if f.is_file() and f.name not in named and f.stat().st_mtime < cutoff:
                f.unlink(missing_ok=True)

    # -- reading -----------------------------------------------------------------------------------
    def search(self, query: str, collection: str = DEFAULT_COLLECTION, k: int = 5, floor: bool = True) -> SearchResult:
        return self.searcher.search(query, collection, k, floor)

    def summarize(self, models, collection: str | None = None, progress: Progress | None = None) -> list[KbDocument]:
        """Summarise every document waiting for its summary; returns them as they are now."""
        return [self.summarize_document(doc, models, progress) for doc in self.pending_summaries(collection)]

    def pending_summaries(self, collection: str | None = None) -> list[KbDocument]:
        return self.docs.list(collection, ("summarizing",))

    def summarize_document(self, doc: KbDocument, models, progress: Progress | None = None) -> KbDocument:
        Summarizer(self.docs, models).summarize(doc, progress)
        return self.docs.get(doc.id)


def open_knowledge_base(settings, engine: Engine, embedder=None, hooks: Hooks | None = None) -> KnowledgeBase:
    """The knowledge base of an app store, configured from `settings` (the caller's; never read globally)."""
    from wenshu.providers.embeddings import get_embedder
    from wenshu.storage.vectors import open_vector_index

    return KnowledgeBase(engine, embedder=embedder or get_embedder(settings),
                         index=open_vector_index(engine, settings.vector_index), files_dir=settings.kb_dir,
                         max_bytes=int(settings.kb_max_file_mb * 1024 * 1024), summaries=settings.kb_summaries,
                         hooks=hooks)
