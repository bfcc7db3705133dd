"""Background ingest over a real HTTP server: an upload answered at once with a task, each file's progress
polled at GET /api/tasks/{id} (parsing -> ... -> ready, or its own error while the rest goes on), and
the resume at server start after a real server process was killed with SIGKILL mid-ingest."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import sqlalchemy as sa
from fixtures_kb import PLATINUM_RULE, bad_set, membership_pdf, metrics_md
from test_kb_server import files_of

from wenshu.kb.ingest import namespace
from wenshu.storage.schema import kb_chunks, vector_items

WENSHU = str(Path(sys.executable).parent / "wenshu")


def poll_task(http, task_id: str, timeout_s: float = 60) -> tuple[dict, list[dict]]:
    """The finished task and every answer seen on the way."""
    seen, deadline = [], time.monotonic() + timeout_s
    while True:
        task = http.get(f"/api/tasks/{task_id}").json()
        seen.append(task)
        if task["status"] == "done":
            return task, seen
        assert time.monotonic() < deadline, task
        time.sleep(0.05)


def test_background_upload_reports_each_file_and_goes_on_after_a_bad_one(server_factory, fake_model, kb_docs,
                                                                         tmp_path, settings):
    fake_model.default = "指标手册：GMV与复购率的口径。"
    fake_model.delay_s = 0.4  # the summary takes a moment: its stage is seen while it runs
    live = server_factory(kb_summaries=True)
    http = live.client()
    bad = bad_set(tmp_path / "bad")
    metrics, campaign = kb_docs[3], kb_docs[2]
    upload = files_of(metrics, bad["kb_encrypted"], bad["kb_unsupported_format"], campaign, metrics,
                      names=["metrics.md", "secret.pdf", "notes.bin", "campaign.html", "again.md"])
    resp = http.post("/api/kb/documents", params={"background": "true", "lang": "zh"}, files=upload)
    assert resp.status_code == 202, resp.text
    first = resp.json()
    assert first["kind"] == "kb_upload" and first["status"] == "running"
    statuses = [i["status"] for i in first["items"]]
    assert statuses[2] == "error" and first["items"][2]["error"]["code"] == "kb_unsupported_format"
    assert "notes.bin" in first["items"][2]["error"]["message"] and "不支持" in first["items"][2]["error"]["message"]
    assert statuses[4] == "duplicate"  # the same content, already waiting in this upload
    assert statuses[0] in ("queued", "parsing", "chunking", "embedding", "summarizing")

    done, seen = poll_task(http, first["task_id"])
    items = {i["name"]: i for i in done["items"]}
    assert items["metrics.md"]["status"] == "ready" and items["campaign.html"]["status"] == "ready"
    assert items["metrics.md"]["document"]["summary"] == "指标手册：GMV与复购率的口径。"
    assert items["secret.pdf"]["status"] == "error" and items["secret.pdf"]["error"]["code"] == "kb_encrypted"
    assert "secret.pdf" in items["secret.pdf"]["error"]["message"] and items["secret.pdf"]["document"] is None
    counted = [i for t in seen for i in t["items"] if i["name"] == "metrics.md" and i["status"] == "summarizing"]
    assert counted and all(i["total"] >= 1 for i in counted if "total" in i) and any("total" in i for i in counted)
    listed = http.get("/api/kb/documents").json()["items"]
    assert sorted(d["name"] for d in listed) == ["campaign.html", "metrics.md"]
    assert all(d["status"] == "ready" and d["queued"] is False for d in listed)
    assert http.get("/api/kb/search", params={"q": "GMV包含运费吗"}).json()["passages"][0]["document"] == "metrics.md"

    from wenshu.bootstrap import open_store

    with open_store(settings) as store:
        other = store.users.create_token("dora")[1]
        store.users.grant("dora", "*")
    assert live.client(other).get(f"/api/tasks/{first['task_id']}").status_code == 404  # not dora's upload


def test_a_citation_passage_can_be_read_back(server_factory, kb_docs):
    http = server_factory(kb_summaries=False).client()
    http.post("/api/kb/documents", files=files_of(kb_docs[1]))
    hit = http.get("/api/kb/search", params={"q": "白金会员怎么升级"}).json()["passages"][0]
    got = http.get(f"/api/kb/chunks/{hit['chunk_id']}").json()
    assert got == {"chunk_id": hit["chunk_id"], "document_id": hit["document_id"], "document": "membership.pdf",
                   "title": hit["title"], "section": hit["heading"], "page": 2, "passage": hit["text"]}
    missing = http.get("/api/kb/chunks/nope:123")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "kb_document_not_found"


# -- resume at server start after kill -9 -------------------------------------------------------------------

CHILD = """
import pathlib, sys, time
import uvicorn
from wenshu.kb.ingest import Hooks
from wenshu.providers.base import ModelClient
from wenshu.providers.fake import ScriptedChatModel
from wenshu.server import create_app
from wenshu.settings import Settings

port, marker, pause_on = int(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]

def pause(document):  # between the vector write and the publish of one document
    if document.name == pause_on:
        marker.write_text(document.id)
        time.sleep(300)

model = ScriptedChatModel(default="never", delay_s=300)  # a summary that never comes back
app = create_app(Settings(rate_limit_per_minute=0), models=ModelClient({"fast": model, "strong": model},
                 provider="fake"), kb_hooks=Hooks(after_vectors=pause))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(home, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WENSHU_")}
    return env | {"WENSHU_HOME": str(home), "WENSHU_KB_SUMMARIES": "true"} | extra


def _wait_up(url: str, proc) -> None:
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, "the server process ended"
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)


def _stop(proc, sig=signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_kill_9_mid_ingest_then_restart_resumes_to_ready(home, tmp_path, store):
    docs = tmp_path / "docs"
    docs.mkdir()
    small, pdf = metrics_md(docs / "metrics.md"), membership_pdf(docs / "membership.pdf")
    marker = tmp_path / "paused"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    first = subprocess.Popen([sys.executable, "-c", CHILD, str(port), str(marker), pdf.name], env=_env(home))
    try:
        _wait_up(url, first)
        with httpx.Client(base_url=url, timeout=30) as http:
            task = http.post("/api/kb/documents", params={"background": "true"}, files=files_of(small, pdf)).json()
            deadline = time.monotonic() + 90
            while not marker.exists() or http.get(f"/api/tasks/{task['task_id']}").json()["items"][0]["status"] \
                    != "summarizing":
                assert time.monotonic() < deadline, "the upload never reached the pauses"
                time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        assert first.wait(timeout=30) == -signal.SIGKILL
    finally:
        _stop(first, signal.SIGKILL)

    with store.engine.connect() as conn:
        left = dict(conn.execute(sa.text("SELECT name, status FROM kb_documents")).all())
        assert left == {"metrics.md": "summarizing", "membership.pdf": "embedding"}  # cut mid-way, twice
        assert conn.execute(sa.select(sa.func.count()).select_from(vector_items)).scalar() > 0

    script = tmp_path / "script.json"
    script.write_text('{"default": "会员手册与指标手册的摘要。"}', encoding="utf-8")
    second = subprocess.Popen([WENSHU, "serve", "--port", str(port)], stdout=subprocess.DEVNULL,
                              env=_env(home, WENSHU_LLM_PROVIDER="fake", WENSHU_FAKE_SCRIPT=str(script)))
    try:
        _wait_up(url, second)
        with httpx.Client(base_url=url, timeout=30) as http:
            deadline = time.monotonic() + 90
            while True:
                listed = http.get("/api/kb/documents").json()["items"]
                if {d["status"] for d in listed} == {"ready"}:
                    break
                assert time.monotonic() < deadline, listed
                time.sleep(0.1)
            assert all(d["summary"] == "会员手册与指标手册的摘要。" for d in listed)
            hit = http.get("/api/kb/search", params={"q": PLATINUM_RULE}).json()["passages"][0]
            assert hit["document"] == "membership.pdf" and hit["page"] == 2
    finally:
        _stop(second)
    with store.engine.connect() as conn:  # every vector belongs to a published chunk: no orphan
        vectors = set(conn.execute(sa.select(vector_items.c.doc_id).where(
            vector_items.c.datasource == namespace("default"))).scalars())
        assert vectors == set(conn.execute(sa.select(kb_chunks.c.id)).scalars())
