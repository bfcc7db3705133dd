"""The knowledge base's documents, chunks and segment summaries (tables in storage/schema.py).

A document row exists from the moment its ingest starts; its chunks are written by `publish`, in the
same transaction that moves it to a searchable status. Readers that search only see chunks of
searchable documents, so a crash before `publish` leaves nothing half visible (docs/kb.md).
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.storage.columns import utcnow
from wenshu.storage.schema import kb_chunks, kb_documents, kb_segment_summaries

SEARCHABLE = ("summarizing", "ready")  # statuses whose chunks search may return
UNFINISHED = ("parsing", "chunking", "embedding", "error")  # statuses `reindex` resumes


@dataclass(frozen=True)
class KbDocument:
    id: str
    collection: str
    name: str
    source: str
    content_hash: str
    format: str
    size_bytes: int
    path: str
    status: str
    title: str | None
    pages: int | None
    chunk_count: int
    summary: str | None
    error_code: str | None
    error_message: str | None
    created_at: datetime
    updated_at: datetime

    @property
    def searchable(self) -> bool:
        return self.status in SEARCHABLE

    def to_dict(self) -> dict:
        out = asdict(self)
        out["created_at"], out["updated_at"] = self.created_at.isoformat(), self.updated_at.isoformat()
        return out


@dataclass(frozen=True)
class KbChunk:
    id: str  # the vector id
    document_id: str
    ordinal: int
    heading: str
    page: int | None
    text: str
    terms: str


def _doc(row) -> KbDocument:
    return KbDocument(**{c.name: row._mapping[c.name] for c in kb_documents.columns})


def _chunk(row) -> KbChunk:
    return KbChunk(**{c.name: row._mapping[c.name] for c in kb_chunks.columns})


class KbDocuments:
    def __init__(self, engine: Engine):
        self.engine = engine

    # -- documents -------------------------------------------------------------------------------
    def create(self, *, collection: str, name: str, source: str, content_hash: str, format: str, size_bytes: int,
               path: str) -> KbDocument:
        """A new document in status `parsing`; the (collection, content hash) pair is unique."""
        now = utcnow()
        values = dict(id=uuid.uuid4().hex, collection=collection, name=name, source=source,
                      content_hash=content_hash, format=format, size_bytes=size_bytes, path=path, status="parsing",
                      chunk_count=0, created_at=now, updated_at=now)
        with self.engine.begin() as conn:
            conn.execute(kb_documents.insert().values(**values))
        return self.get(values["id"])

    def get(self, doc_id: str) -> KbDocument | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(kb_documents).where(kb_documents.c.id == doc_id)).first()
        return _doc(row) if row else None

    def by_hash(self, collection: str, content_hash: str) -> KbDocument | None:
        q = sa.select(kb_documents).where(kb_documents.c.collection == collection,
                                          kb_documents.c.content_hash == content_hash)
        with self.engine.connect() as conn:
            row = conn.execute(q).first()
        return _doc(row) if row else None

    def list(self, collection: str | None = None, statuses: tuple[str, ...] | None = None) -> list[KbDocument]:
        q = sa.select(kb_documents).order_by(kb_documents.c.created_at, kb_documents.c.id)
        if collection is not None:
            q = q.where(kb_documents.c.collection == collection)
        if statuses is not None:
            q = q.where(kb_documents.c.status.in_(statuses))
        with self.engine.connect() as conn:
            return [_doc(r) for r in conn.execute(q)]

    def collections(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(sa.select(kb_documents.c.collection).distinct()).scalars())

    def update(self, doc_id: str, **fields) -> None:
        """Set status, title, error fields, ...; `updated_at` follows."""
        with self.engine.begin() as conn:
            conn.execute(kb_documents.update().where(kb_documents.c.id == doc_id).values(**fields,
                                                                                         updated_at=utcnow()))

    def publish(self, doc_id: str, chunks: list[dict], *, status: str, title: str | None, pages: int | None) -> None:
        """Replace the document's chunks (and drop summaries of the old ones) and make it searchable, in one
        transaction."""
        with self.engine.begin() as conn:
            conn.execute(kb_chunks.delete().where(kb_chunks.c.document_id == doc_id))
            conn.execute(kb_segment_summaries.delete().where(kb_segment_summaries.c.document_id == doc_id))
            if chunks:
                conn.execute(kb_chunks.insert(), [{**c, "document_id": doc_id} for c in chunks])
            conn.execute(kb_documents.update().where(kb_documents.c.id == doc_id).values(
                status=status, title=title, pages=pages, chunk_count=len(chunks), error_code=None,
                error_message=None, updated_at=utcnow()))

    def delete(self, doc_id: str) -> None:
        with self.engine.begin() as conn:  # chunks and segment summaries go with it (ON DELETE CASCADE)
            conn.execute(kb_chunks.delete().where(kb_chunks.c.document_id == doc_id))
            conn.execute(kb_segment_summaries.delete().where(kb_segment_summaries.c.document_id == doc_id))
            conn.execute(kb_documents.delete().where(kb_documents.c.id == doc_id))

    # -- chunks ----------------------------------------------------------------------------------
    def signature(self, collection: str) -> tuple:
        """Changes whenever the searchable chunks of the collection may have changed."""
        q = sa.select(sa.func.count(), sa.func.max(kb_documents.c.updated_at), sa.func.sum(kb_documents.c.chunk_count)
                      ).where(kb_documents.c.collection == collection, kb_documents.c.status.in_(SEARCHABLE))
        with self.engine.connect() as conn:
            return tuple(conn.execute(q).one())

    def searchable_chunks(self, collection: str) -> list[KbChunk]:
        q = (sa.select(kb_chunks).join(kb_documents, kb_documents.c.id == kb_chunks.c.document_id)
             .where(kb_documents.c.collection == collection, kb_documents.c.status.in_(SEARCHABLE))
             .order_by(kb_chunks.c.document_id, kb_chunks.c.ordinal))
        with self.engine.connect() as conn:
            return [_chunk(r) for r in conn.execute(q)]

    def chunk(self, chunk_id: str) -> KbChunk | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(kb_chunks).where(kb_chunks.c.id == chunk_id)).first()
        return _chunk(row) if row else None

    def chunks_of(self, doc_id: str) -> list[KbChunk]:
        q = sa.select(kb_chunks).where(kb_chunks.c.document_id == doc_id).order_by(kb_chunks.c.ordinal)
        with self.engine.connect() as conn:
            return [_chunk(r) for r in conn.execute(q)]

    # -- summaries -------------------------------------------------------------------------------
    def segment_summaries(self, doc_id: str) -> dict[int, str]:
        q = sa.select(kb_segment_summaries.c.segment, kb_segment_summaries.c.summary).where(
            kb_segment_summaries.c.document_id == doc_id)
        with self.engine.connect() as conn:
            return dict(conn.execute(q).all())

    def put_segment_summary(self, doc_id: str, segment: int, summary: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(kb_segment_summaries.delete().where(kb_segment_summaries.c.document_id == doc_id,
                                                             kb_segment_summaries.c.segment == segment))
            conn.execute(kb_segment_summaries.insert().values(document_id=doc_id, segment=segment, summary=summary,
                                                              created_at=utcnow()))

    def finish_summary(self, doc_id: str, summary: str) -> None:
        """The document's summary, and status `ready`, once every segment is summarised."""
        with self.engine.begin() as conn:
            waiting = sa.and_(kb_documents.c.id == doc_id, kb_documents.c.status == "summarizing")
            conn.execute(kb_documents.update().where(waiting).values(summary=summary, status="ready",
                                                                     updated_at=utcnow()))
