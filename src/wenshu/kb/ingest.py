"""Ingest: a file becomes a searchable document, step by step, safe against a crash at any point.

    parsing -> chunking -> embedding -> [vectors written] -> publish (chunks + status, one transaction)

1. The file is checked (format, size), hashed and kept under `files_dir/<sha256><suffix>`; a document row
   is created in status `parsing`. A file whose content the collection already holds is a duplicate
   (a finished one is reported, an unfinished one is resumed).
2. It is parsed and chunked; a per-file error (encrypted, damaged, empty) removes the row and the copy.
3. Chunks are embedded in batches (progress after each) and all their vectors written to the vector
   index under `kb:<collection>` in one call. Vectors already there with the same content hash (a
   resumed ingest) are not embedded again.
4. `publish` writes the chunk rows and moves the document to `summarizing` (or `ready`) in one
   transaction. Search only returns chunks of such documents, so vectors written before a crash are
   never found; `reindex` resumes the document and sweeps vectors no document owns.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from wenshu.errors import WenshuError
from wenshu.kb.chunk import Chunk, chunk, embedding_text
from wenshu.kb.errors import KbEmpty, KbFileError, KbUnreadable
from wenshu.kb.parse import check_size, file_format, parse_bytes
from wenshu.knowledge.tokenize import tokens
from wenshu.storage.kb_store import KbDocument, KbDocuments

Progress = Callable[[str, int, int], None]
EMBED_BATCH = 32
WAITING = ("added", "resumed")  # admitted, to be ingested


def namespace(collection: str) -> str:
    """The vector index's datasource key of a collection."""
    return f"kb:{collection}"


@dataclass
class Hooks:
    """Test seams: `after_vectors(document)` runs between the vector write and the publish."""

    after_vectors: Callable[[KbDocument], None] | None = None


@dataclass
class AddResult:
    name: str
    status: str  # added | resumed | duplicate | error
    document: KbDocument | None = None
    error: WenshuError | None = None
    seconds: float = 0.0

    def to_dict(self, lang: str = "en") -> dict:
        return {"name": self.name, "status": self.status, "seconds": round(self.seconds, 3),
                "document": self.document.to_dict() if self.document else None,
                "error": self.error.to_dict(lang) if self.error else None}


@dataclass
class Ingestor:
    docs: KbDocuments
    embedder: object  # providers.embeddings.Embedder
    index: object  # knowledge.recall_index.VectorIndex
    files_dir: Path
    max_bytes: int
    summaries: bool = True
    hooks: Hooks = field(default_factory=Hooks)

    # -- entry points ------------------------------------------------------------------------------
    def add_file(self, path: Path, collection: str, progress: Progress | None = None) -> AddResult:
        path = Path(path)
        name = path.name
        try:
            file_format(name)
            check_size(name, path.stat().st_size, self.max_bytes)
            data = path.read_bytes()
        except KbFileError as err:
            return AddResult(name, "error", error=err)
        except OSError as err:
            return AddResult(name, "error", error=KbUnreadable(name, err.strerror or type(err).__name__))
        return self.add_bytes(name, data, collection, source=str(path.resolve()), progress=progress)

    def add_bytes(self, name: str, data: bytes, collection: str, *, source: str,
                  progress: Progress | None = None) -> AddResult:
        t0 = time.perf_counter()
        admitted = self.admit(name, data, collection, source=source)
        if admitted.status not in WAITING:
            return admitted
        result = self.ingest(admitted.document, progress)
        result.status = result.status if result.error else admitted.status
        result.seconds = time.perf_counter() - t0
        return result

    def admit(self, name: str, data: bytes, collection: str, *, source: str) -> AddResult:
        """Check and keep a file and give it a document row, without ingesting it. `added` (a new row in status
        `parsing`) or `resumed` (an unfinished document with this content) wait for `ingest`; `duplicate` and
        `error` need nothing more. The server admits an upload in the request and ingests in the background."""
        try:
            fmt = file_format(name)
            check_size(name, len(data), self.max_bytes)
        except KbFileError as err:
            return AddResult(name, "error", error=err)
        digest = hashlib.sha256(data).hexdigest()
        known = self.docs.by_hash(collection, digest)
        if known is not None and known.searchable:
            self._replace_older(known)  # a replace cut short by a crash is finished here
            return AddResult(name, "duplicate", document=known)
        if known is None:
            kept = self._keep(data, f"{digest}{Path(name).suffix.lower()}")
            known = self.docs.create(collection=collection, name=name, source=source, content_hash=digest,
                                     format=fmt, size_bytes=len(data), path=kept.name)
            return AddResult(name, "added", document=known)
        self._keep(data, known.path)  # an unfinished document resumes; its copy is put back if it was lost
        return AddResult(name, "resumed", document=known)

    def ingest(self, doc: KbDocument, progress: Progress | None = None) -> AddResult:
        """Run (or resume) every step of one document; errors become the result, never an exception."""
        try:
            self._steps(doc, progress or (lambda *_: None))
        except KbFileError as err:
            self.remove(doc)
            return AddResult(doc.name, "error", error=err)
        except WenshuError as err:
            self.docs.update(doc.id, status="error", error_code=err.code, error_message=err.en)
            return AddResult(doc.name, "error", document=self.docs.get(doc.id), error=err)
        except Exception as err:  # noqa: BLE001 - one document's failure must not end the batch
            wrapped = WenshuError(f"Ingesting '{doc.name}' failed: {type(err).__name__}: {err}",
                                  f"导入「{doc.name}」失败：{type(err).__name__}: {err}", code="kb_ingest_failed")
            self.docs.update(doc.id, status="error", error_code=wrapped.code, error_message=wrapped.en)
            return AddResult(doc.name, "error", document=self.docs.get(doc.id), error=wrapped)
        self._replace_older(doc)
        return AddResult(doc.name, "added", document=self.docs.get(doc.id))

    # -- the steps ---------------------------------------------------------------------------------
    def _steps(self, doc: KbDocument, progress: Progress) -> None:
        self.docs.update(doc.id, status="parsing")
        parsed = parse_bytes(doc.name, (self.files_dir / doc.path).read_bytes(), self.max_bytes)
        self.docs.update(doc.id, status="chunking", title=parsed.title, pages=parsed.pages)
        chunks = chunk(parsed.markdown, paged=parsed.pages is not None)
        if not chunks:
            raise KbEmpty(doc.name)
        self.docs.update(doc.id, status="embedding")
        texts = [embedding_text(parsed.title, c) for c in chunks]
        ids = [c.key(doc.id) for c in chunks]
        self._write_vectors(doc, ids, texts, progress)
        if self.hooks.after_vectors is not None:
            self.hooks.after_vectors(doc)
        rows = [_row(c, i, t) for c, i, t in zip(chunks, ids, texts, strict=True)]
        self.docs.publish(doc.id, rows, status="summarizing" if self.summaries else "ready", title=parsed.title,
                          pages=parsed.pages)
        self._drop_vectors(doc.collection, doc.id, keep=set(ids))

    def _write_vectors(self, doc: KbDocument, ids: list[str], texts: list[str], progress: Progress) -> None:
        ns = namespace(doc.collection)
        hashes = [hashlib.sha1(f"{self.embedder.name}\x00{t}".encode()).hexdigest() for t in texts]
        have = self.index.hashes(ns)
        todo = [i for i, (vid, h) in enumerate(zip(ids, hashes, strict=True)) if have.get(vid) != h]
        label = f"embedding {doc.name}"
        progress(label, 0, len(todo))
        vectors: list[np.ndarray] = []
        for start in range(0, len(todo), EMBED_BATCH):
            batch = todo[start : start + EMBED_BATCH]
            vectors.append(self.embedder.embed([texts[i] for i in batch]))
            progress(label, min(start + EMBED_BATCH, len(todo)), len(todo))
        if todo:
            self.index.upsert(ns, [ids[i] for i in todo], np.vstack(vectors), [hashes[i] for i in todo])

    # -- keeping things tidy -------------------------------------------------------------------------
    def _keep(self, data: bytes, name: str) -> Path:
        """The file's copy `files_dir/<sha256><suffix>`, which resume and reindex read (written atomically,
        shared by equal content); the document row names it relative to `files_dir`, so WENSHU_HOME can move."""
        self.files_dir.mkdir(parents=True, exist_ok=True)
        target = self.files_dir / name
        if not target.exists():
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        return target

    def forget_file(self, doc: KbDocument) -> None:
        if not any(d.path == doc.path for d in self.docs.list()):
            (self.files_dir / doc.path).unlink(missing_ok=True)

    def _drop_vectors(self, collection: str, doc_id: str, keep: set[str]) -> None:
        ns = namespace(collection)
        stale = [i for i in self.index.hashes(ns) if i.startswith(f"{doc_id}:") and i not in keep]
        if stale:
            self.index.delete(ns, stale)

    def _replace_older(self, doc: KbDocument) -> None:
        """A changed file added again from the same place replaces the older document."""
        for old in self.docs.list(doc.collection):
            if old.id != doc.id and old.source == doc.source:
                self.remove(old)

    def remove(self, doc: KbDocument) -> None:
        """The document's rows, vectors and (unless another document shares it) its kept file."""
        self.docs.delete(doc.id)
        self._drop_vectors(doc.collection, doc.id, keep=set())
        self.forget_file(doc)


def _row(c: Chunk, vector_id: str, indexed_text: str) -> dict:
    return {"ordinal": c.ordinal, "id": vector_id, "heading": c.heading, "page": c.page, "text": c.text,
            "terms": " ".join(tokens(indexed_text))}
