"""Knowledge-base ingest on real files, a real app store (SQLite + sqlite-vec) and the real embedder:
every format parsed with its structure, per-file errors that let the batch go on, duplicates by content
hash, remove, replace, and an ingest that fails midway and is resumed by `reindex`."""

from __future__ import annotations

import socket

import sqlalchemy as sa
from fixtures_kb import (CUSTOM_RULE, PLATINUM_RULE, bad_set, slides_pptx, targets_xlsx)

from wenshu.kb.ingest import namespace
from wenshu.kb.library import KnowledgeBase
from wenshu.providers.embeddings import OpenAIEmbedder
from wenshu.storage.schema import kb_chunks, kb_documents


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_every_format_keeps_its_structure(kb, kb_docs, tmp_path):
    results = kb.add([kb_docs[0].parent, slides_pptx(tmp_path / "review.pptx"), targets_xlsx(tmp_path / "t.xlsx")])
    assert [r.status for r in results] == ["added"] * 6, [r.error for r in results]
    docs = {d.name: d for d in kb.list()}
    assert {d.status for d in docs.values()} == {"summarizing"}  # searchable; the summary comes later
    refund = kb.chunks(docs["退款政策 (v2).docx"])
    exceptions = next(c for c in refund if CUSTOM_RULE in c.text)
    assert exceptions.heading == "退款政策 Refund Policy > 例外情况"
    assert "| 品类 | 退款期限 |" in exceptions.text or "| 服装 | 7天 |" in exceptions.text  # the table stays a table
    pdf = docs["membership.pdf"]
    assert pdf.pages == 3 and pdf.format == "pdf"
    assert next(c for c in kb.chunks(pdf) if "Platinum" in c.text).page == 2
    html = kb.chunks(docs["campaign.html"])
    assert not any("var x" in c.text for c in html) and any("| 抖音 | 80万 |" in c.text for c in html)
    assert [c.page for c in kb.chunks(docs["review.pptx"])] == [1, 2]
    assert "| East China | 120M |" in kb.chunks(docs["t.xlsx"])[0].text
    assert docs["metrics.md"].title == "指标手册"


def test_bad_files_fail_one_by_one_and_the_batch_goes_on(kb, kb_docs, tmp_path, settings):
    bad = bad_set(tmp_path / "bad")
    results = kb.add([*bad.values(), kb_docs[3]])
    codes = [r.error.code if r.error else r.status for r in results]
    assert codes == ["kb_encrypted", "kb_unreadable", "kb_empty", "kb_unsupported_format", "kb_unreadable", "added"]
    assert all(r.error.en.startswith(f"'{r.name}'") and r.error.zh for r in results[:-1])  # names the file
    assert [d.name for d in kb.list()] == ["metrics.md"]  # nothing of the bad files was kept
    assert len(list(settings.kb_dir.iterdir())) == 1


def test_size_limit_and_odd_names(settings, store, tmp_path):
    small = KnowledgeBase(store.engine, embedder=_embedder(settings), index=_index(store), files_dir=settings.kb_dir,
                          max_bytes=50 * 1024 * 1024)
    huge = tmp_path / "huge.pdf"
    with huge.open("wb") as f:
        f.truncate(200 * 1024 * 1024)  # a sparse 200 MB file: refused by its size, never read
    odd = tmp_path / "报告 (final) 'v2' #1 😀.md"
    odd.write_text("# 报告\n\n华东区第三季度的退货率为百分之四。\n", encoding="utf-8")
    results = small.add([huge, odd])
    assert results[0].error.code == "kb_too_large" and "200.0 MiB, over the limit of 50 MiB" in results[0].error.en
    assert results[1].status == "added" and results[1].document.name == odd.name
    assert small.find(odd.name).id == results[1].document.id


def test_the_same_content_twice_is_recognised(kb, kb_docs, tmp_path):
    first = kb.add([kb_docs[3]])[0]
    copy = tmp_path / "copy-of-metrics.md"
    copy.write_bytes(kb_docs[3].read_bytes())
    again = kb.add([kb_docs[3], copy])
    assert [r.status for r in again] == ["duplicate", "duplicate"]
    assert again[1].document.id == first.document.id and len(kb.list()) == 1


def test_remove_deletes_rows_vectors_and_the_kept_file(kb, kb_docs, store, settings):
    added = kb.add(kb_docs[:2])
    assert len(kb.index.hashes(namespace("default"))) == sum(r.document.chunk_count for r in added)
    kb.remove(added[0].document.id[:8])
    kb.remove("membership.pdf")
    assert kb.list() == [] and kb.index.hashes(namespace("default")) == {}
    assert _count(store.engine, kb_chunks) == 0 and list(settings.kb_dir.iterdir()) == []


def test_a_changed_file_added_again_replaces_the_older_version(kb, kb_docs):
    path = kb_docs[3]
    old = kb.add([path])[0].document
    path.write_text(path.read_text(encoding="utf-8") + "\n## 客单价\n\n客单价等于GMV除以下单客户数。\n", encoding="utf-8")
    new = kb.add([path])[0].document
    assert [d.id for d in kb.list()] == [new.id] and new.id != old.id
    assert not [i for i in kb.index.hashes(namespace("default")) if i.startswith(old.id)]


def test_a_failed_ingest_is_kept_and_reindex_resumes_it(settings, store, kb_docs):
    with socket.socket() as s:  # a port nobody listens on: the embedding endpoint is down
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    down = KnowledgeBase(store.engine, embedder=OpenAIEmbedder(dead, "m", timeout_s=2), index=_index(store),
                         files_dir=settings.kb_dir, max_bytes=10**7)
    failed = down.add([kb_docs[0]])[0]
    assert failed.status == "error" and failed.error.code == "model_error"
    assert failed.document.status == "error" and failed.document.error_code == "model_error"
    kb = KnowledgeBase(store.engine, embedder=_embedder(settings), index=_index(store), files_dir=settings.kb_dir,
                       max_bytes=10**7)
    assert not kb.search(PLATINUM_RULE).found
    resumed = kb.reindex()
    assert [r.status for r in resumed] == ["added"] and resumed[0].document.status == "summarizing"
    assert kb.search("定制商品能退款吗").passages[0].document == kb_docs[0].name
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(kb_documents.c.error_code)).scalar() is None


def _embedder(settings):
    from wenshu.providers.embeddings import get_embedder

    return get_embedder(settings)


def _index(store):
    from wenshu.storage.vectors import open_vector_index

    return open_vector_index(store.engine)
