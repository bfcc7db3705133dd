"""The knowledge base over HTTP: upload (multipart), list, get, delete documents, and search passages.

Uploading and deleting change what every user's answers draw on, so they need the `*` grant, like the
examples and the glossary; listing and searching need only a valid caller. An upload is ingested in the
request (the document is searchable when it returns), or with `background=true` admitted in the request
and ingested in the background as a task polled at `GET /api/tasks/{id}` (server/kb_jobs.py, what the
web UI does); summaries follow in the background either way.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse

from wenshu.kb.errors import KbNotFound
from wenshu.server.deps import CurrentUser, LangDep, StateDep, require_admin
from wenshu.server.schemas import Deleted

router = APIRouter(prefix="/api/kb", tags=["knowledge base"])


def get_kb(state: StateDep):
    return state.kb.get()


KbDep = Annotated[Any, Depends(get_kb)]


def _upload_name(upload: UploadFile) -> str:
    """The file's own name: any folder part a client sends is dropped."""
    name = PurePath((upload.filename or "").replace("\\", "/")).name.strip()
    return name or "upload"


@router.post("/documents", operation_id="kb_upload")
def upload(state: StateDep, kb: KbDep, user: CurrentUser, lang: LangDep,
           files: list[UploadFile] = File(..., description="One or more documents (PDF, DOCX, PPTX, XLSX, HTML, "
                                          "Markdown, text, CSV)."),
           collection: str = Form("default"),
           background: bool = Query(False, description="Answer at once with a task (202) and ingest in the "
                                    "background; poll GET /api/tasks/{task_id} for each file's progress.")):
    """Add documents; each file gets its own result (added, resumed, duplicate, or an error with its code)."""
    require_admin(user)
    if background:
        task = state.kb.jobs.upload(user.user_id, ((_upload_name(f), f.file.read()) for f in files), collection)
        return JSONResponse(state.kb.jobs.task_out(task, lang), status_code=202)
    results = []
    for f in files:
        results.append(kb.add_bytes(_upload_name(f), f.file.read(), collection))  # the body limit bounds the read
    if any(r.status in ("added", "resumed") for r in results):
        state.kb.kick()
    return {"items": [r.to_dict(lang) for r in results]}


@router.get("/documents", operation_id="kb_list")
def list_documents(state: StateDep, kb: KbDep, user: CurrentUser, collection: str | None = None) -> dict[str, Any]:
    """The documents, oldest first; one being worked on in the background also has `queued` (waiting for the
    ingest worker) and `done`/`total` of the stage that counts (embedding batches, summary segments)."""
    return {"items": [state.kb.document_out(d) for d in kb.list(collection)]}


@router.get("/documents/{document_id}", operation_id="kb_get")
def get_document(document_id: str, kb: KbDep, user: CurrentUser) -> dict[str, Any]:
    """A document with its sections (heading path and page of each chunk, in order)."""
    doc = kb.find(document_id)
    sections = list(dict.fromkeys((c.heading, c.page) for c in kb.chunks(doc)))
    return {**doc.to_dict(), "sections": [{"heading": h, "page": p} for h, p in sections]}


@router.get("/chunks/{chunk_id}", operation_id="kb_chunk")
def get_chunk(chunk_id: str, kb: KbDep, user: CurrentUser) -> dict[str, Any]:
    """One passage (a citation's `chunk_id`) with its document's name and title, section and page."""
    chunk = kb.docs.chunk(chunk_id)
    doc = kb.docs.get(chunk.document_id) if chunk is not None else None
    if doc is None or not doc.searchable:
        raise KbNotFound(chunk_id)
    return {"chunk_id": chunk.id, "document_id": doc.id, "document": doc.name, "title": doc.title or doc.name,
            "section": chunk.heading, "page": chunk.page, "passage": chunk.text}


@router.delete("/documents/{document_id}", operation_id="kb_delete", response_model=Deleted)
def delete_document(document_id: str, kb: KbDep, user: CurrentUser) -> Deleted:
    require_admin(user)
    kb.remove(kb.find(document_id).id)
    return Deleted()


@router.get("/search", operation_id="kb_search")
def search(kb: KbDep, user: CurrentUser, q: str = Query(..., min_length=1, max_length=2000),
           k: int = Query(5, ge=1, le=20), collection: str = "default") -> dict[str, Any]:
    """The best passages for a question, with document, section and page; `found` is false when nothing is
    relevant ("not in the documents")."""
    return kb.search(q, collection, k).to_dict()


def find_task(state, user, task_id: str, lang: str) -> dict | None:
    """A knowledge-base task as GET /api/tasks/{id} answers it, or None (then it may be another kind)."""
    task = state.kb.jobs.get(task_id, user)
    return None if task is None else state.kb.jobs.task_out(task, lang)
