"""The knowledge base over a real HTTP server (uvicorn, real app store, real embedder, scripted fake model):
multipart upload with per-file results, list, get, search, delete, the same auth as other routes, the
upload size limits, and summaries filled in by the background worker."""

from __future__ import annotations

import time

import pytest
from fixtures_kb import bad_set

MIME = {".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".pdf": "application/pdf",
        ".html": "text/html", ".md": "text/markdown"}


def files_of(*paths, names=None):
    names = names or [p.name for p in paths]
    return [("files", (n, p.read_bytes(), MIME.get(p.suffix, "application/octet-stream")))
            for n, p in zip(names, paths, strict=True)]


def test_upload_list_get_search_delete(server_factory, kb_docs, tmp_path):
    http = server_factory(kb_summaries=False).client()
    bad = bad_set(tmp_path / "bad")
    names = [*(p.name for p in kb_docs), "secret.pdf", "../../etc/again.md"]
    resp = http.post("/api/kb/documents", files=files_of(*kb_docs, bad["kb_encrypted"], kb_docs[3], names=names))
    assert resp.status_code == 200, resp.text
    items = resp.json()["items"]
    assert [i["status"] for i in items] == ["added"] * 4 + ["error", "duplicate"]
    assert items[4]["error"]["code"] == "kb_encrypted" and "secret.pdf" in items[4]["error"]["message"]
    listed = http.get("/api/kb/documents").json()["items"]
    assert sorted(d["name"] for d in listed) == sorted(p.name for p in kb_docs)
    pdf = next(d for d in listed if d["name"] == "membership.pdf")
    got = http.get(f"/api/kb/documents/{pdf['id']}").json()
    assert got["pages"] == 3 and {"heading": "", "page": 2} in got["sections"]
    assert got["source"] == "upload:membership.pdf"
    found = http.get("/api/kb/search", params={"q": "白金会员怎么升级"}).json()
    assert found["found"] and found["passages"][0]["document"] == "membership.pdf" and found["passages"][0]["page"] == 2
    assert http.get("/api/kb/search", params={"q": "明天会下雨吗"}).json() == {"query": "明天会下雨吗", "found": False,
                                                                              "passages": []}
    assert http.delete(f"/api/kb/documents/{pdf['id']}").json() == {"deleted": True}
    gone = http.get(f"/api/kb/documents/{pdf['id']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "kb_document_not_found"
    after = http.get("/api/kb/search", params={"q": "白金会员怎么升级"}).json()["passages"]
    assert all(p["document"] != "membership.pdf" for p in after)


def test_a_path_in_the_uploaded_name_is_dropped(server_factory, kb_docs):
    http = server_factory(kb_summaries=False).client()
    item = http.post("/api/kb/documents", files=files_of(kb_docs[3], names=["../../etc/metrics.md"])).json()["items"][0]
    assert item["document"]["name"] == "metrics.md"


def test_the_same_auth_as_other_routes(server_factory, settings, kb_docs):
    from wenshu.bootstrap import open_store

    with open_store(settings) as store:
        admin = store.users.create_token("alice")[1]
        store.users.grant("alice", "*")
        reader = store.users.create_token("carol")[1]
        store.users.grant("carol", "demo")
    live = server_factory(kb_summaries=False)
    assert live.client().get("/api/kb/documents").json()["error"]["code"] == "auth_required"
    refused = live.client(reader).post("/api/kb/documents", files=files_of(kb_docs[3]))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    assert live.client(admin).post("/api/kb/documents", files=files_of(kb_docs[3])).status_code == 200
    assert live.client(reader).get("/api/kb/search", params={"q": "复购率"}).json()["found"]
    doc_id = live.client(reader).get("/api/kb/documents").json()["items"][0]["id"]
    assert live.client(reader).delete(f"/api/kb/documents/{doc_id}").status_code == 403


def test_upload_size_limits(server_factory, tmp_path):
    http = server_factory(kb_summaries=False, kb_max_file_mb=0.01, server_max_body_bytes=50_000).client()
    # 10 KiB a file; an upload body may be 74 KiB (other routes: 50 kB)
    big = tmp_path / "big.md"
    big.write_text("# 大文件\n\n" + "仓库作业规范。" * 3000, encoding="utf-8")  # about 60 KB
    item = http.post("/api/kb/documents", files=files_of(big)).json()["items"][0]
    assert item["error"]["code"] == "kb_too_large"
    huge = tmp_path / "huge.md"
    huge.write_bytes(b"x" * 200_000)
    resp = http.post("/api/kb/documents", files=files_of(huge))
    assert resp.status_code == 413 and resp.json()["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize("lang", ["zh"])
def test_summaries_are_filled_in_by_the_background_worker(server_factory, fake_model, kb_docs, lang):
    live = server_factory(kb_summaries=True)
    fake_model.queue("指标手册：GMV与复购率的口径。")
    http = live.client()
    posted = http.post("/api/kb/documents", files=files_of(kb_docs[3]), params={"lang": lang})
    doc = posted.json()["items"][0]["document"]
    assert doc["status"] == "summarizing"  # searchable at once; the summary follows
    deadline = time.monotonic() + 30
    while (got := http.get(f"/api/kb/documents/{doc['id']}").json())["status"] != "ready":
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    assert got["summary"] == "指标手册：GMV与复购率的口径。"
