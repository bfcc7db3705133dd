"""Crash safety of ingest, with a real process killed by SIGKILL between the vector write and the publish.

A child process adds a document to the test's app store; its `after_vectors` hook (the test seam of
wenshu.kb.ingest) writes a marker and sleeps. The test kills it there with `kill -9`, then checks that
the vectors it wrote are found by nothing (the document is not searchable, no chunk row exists) and
that re-adding the file, or `reindex`, resumes it to a searchable document with no orphan vector left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa
from fixtures_kb import PLATINUM_RULE

from wenshu.kb.ingest import namespace
from wenshu.storage.schema import kb_chunks, vector_items

CHILD = """
import pathlib, sys, time
from wenshu.bootstrap import open_store
from wenshu.kb.ingest import Hooks
from wenshu.kb.library import open_knowledge_base
from wenshu.settings import Settings

marker, doc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

def pause(document):
    written = marker.with_suffix(".tmp")
    written.write_text(document.id)
    written.replace(marker)  # atomic: the test never reads the marker before the id is in it
    time.sleep(300)

settings = Settings()
kb = open_knowledge_base(settings, open_store(settings).engine, hooks=Hooks(after_vectors=pause))
kb.add([doc])
"""


def _kill_mid_ingest(home, doc, tmp_path) -> str:
    marker = tmp_path / "between-vectors-and-publish"
    env = {**os.environ, "WENSHU_HOME": str(home)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(marker), str(doc)], env=env)
    try:
        deadline = time.monotonic() + 240
        while not marker.exists():
            assert child.poll() is None, "the child ended before reaching the pause"
            assert time.monotonic() < deadline, "the child never reached the pause"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
    return marker.read_text()


def _vector_ids(engine) -> set[str]:
    with engine.connect() as conn:
        q = sa.select(vector_items.c.doc_id).where(vector_items.c.datasource == namespace("default"))
        return set(conn.execute(q).scalars())


@pytest.mark.parametrize("resume", ["add again", "reindex"])
def test_kill_between_vectors_and_publish_leaves_nothing_visible_and_resumes(resume, kb, kb_docs, store, home,
                                                                             tmp_path):
    pdf = kb_docs[1]
    doc_id = _kill_mid_ingest(home, pdf, tmp_path)

    written = _vector_ids(store.engine)
    assert written and all(i.startswith(f"{doc_id}:") for i in written)  # the vectors did reach the store...
    (doc,) = kb.list()
    assert doc.id == doc_id and doc.status == "embedding" and not doc.searchable and doc.chunk_count == 0
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(kb_chunks)).scalar() == 0
    assert not kb.search(PLATINUM_RULE).found  # ...but nothing finds them
    assert not kb.search("白金会员的升级条件").found

    results = kb.add([pdf]) if resume == "add again" else kb.reindex()
    assert [r.status for r in results] == (["resumed"] if resume == "add again" else ["added"])
    (doc,) = kb.list()
    assert doc.id == doc_id and doc.searchable and doc.chunk_count > 0
    hit = kb.search("How do gold members become platinum?").passages[0]
    assert hit.document == pdf.name and hit.page == 2 and "Platinum" in hit.text
    assert _vector_ids(store.engine) == {c.id for c in kb.chunks(doc)}  # no orphan vector left


def test_reindex_sweeps_vectors_of_a_document_that_is_gone(kb, kb_docs, store, home, tmp_path):
    doc_id = _kill_mid_ingest(home, kb_docs[3], tmp_path)
    with store.engine.begin() as conn:  # e.g. its row was removed by hand, or by a remove racing the ingest
        conn.exec_driver_sql("DELETE FROM kb_documents WHERE id = ?", (doc_id,))
    assert _vector_ids(store.engine)
    kb.reindex()
    assert _vector_ids(store.engine) == set()
