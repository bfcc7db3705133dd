"""The knowledge base over HTTP: upload (multipart), list, get, delete documents, and search passages.

Uploading and deleting change what every user's answers draw on, so they need the `*` grant, like the
examples and the glossary; listing and searching need only a valid caller. An upload is ingested in the
request (the document is searchable when it returns); summaries follow in the background.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile

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
           collection: str = Form("default")) -> dict[str, Any]:
    """Add documents; each file gets its own result (added, resumed, duplicate, or an error with its code)."""
    require_admin(user)
    results = []
    for f in files:
        results.append(kb.add_bytes(_upload_name(f), f.file.read(), collection))  # the body limit bounds the read
    if any(r.status in ("added", "resumed") for r in results):
        state.kb.kick()
    return {"items": [r.to_dict(lang) for r in results]}


@router.get("/documents", operation_id="kb_list")
def list_documents(kb: KbDep, user: CurrentUser, collection: str | None = None) -> dict[str, Any]:
    return {"items": [d.to_dict() for d in kb.list(collection)]}


@router.get("/documents/{document_id}", operation_id="kb_get")
def get_document(document_id: str, kb: KbDep, user: CurrentUser) -> dict[str, Any]:
    """A document with its sections (heading path and page of each chunk, in order)."""
    doc = kb.find(document_id)
    sections = list(dict.fromkeys((c.heading, c.page) for c in kb.chunks(doc)))
    return {**doc.to_dict(), "sections": [{"heading": h, "page": p} for h, p in sections]}


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
