"""Knowledge-base uploads and workspace tasks on the task queue's workers (fixtures_queue.py: a real redis-server,
two API servers, two `wenshu worker` processes, the scripted fake model): an upload admitted by one API process
is ingested by a worker and polled from the other with the fields of the in-process upload; a worker killed
with SIGKILL mid-ingest is replaced by another that resumes the document, leaving no orphan vector; a workspace
task runs on a worker, its steps streamed from the other API process, and stop, resume, apply and discard go
on working; GET /api/tasks lists the caller's queued tasks and /metrics counts them by kind and state."""

from __future__ import annotations

import os
import signal
import time

import redis
import sqlalchemy as sa
from fixtures_kb import metrics_md
from fixtures_server import CITY_TOP, parse_sse
from rq.job import Job
from tasks_support import calc_project, snapshot
from test_kb_server import files_of

from wenshu.kb.ingest import namespace
from wenshu.storage.schema import kb_chunks, vector_items


def _poll(http, task_id: str, until, timeout_s: float = 120) -> tuple[dict, list[dict]]:
    seen, deadline = [], time.monotonic() + timeout_s
    while True:
        task = http.get(f"/api/tasks/{task_id}").json()
        seen.append(task)
        if until(task):
            return task, seen
        assert time.monotonic() < deadline, task
        time.sleep(0.05)


def _pids(team) -> set[str]:
    return {str(p) for p in team.workers.pids}


def _orphans(team) -> set[str]:
    """Vectors of the default collection that no published chunk owns (and chunks with no vector)."""
    with team.api[0].state.store.engine.connect() as conn:
        vectors = set(conn.execute(sa.select(vector_items.c.doc_id).where(
            vector_items.c.datasource == namespace("default"))).scalars())
        return vectors ^ set(conn.execute(sa.select(kb_chunks.c.id)).scalars())


def test_an_upload_is_ingested_by_a_worker_and_polled_from_any_api_process(team, tmp_path):
    first, second = team.api[0].client(), team.api[1].client()
    doc = metrics_md(tmp_path / "metrics.md")
    (tmp_path / "notes.bin").write_bytes(bytes(range(256)))
    made = first.post("/api/kb/documents", params={"background": "true"},
                      files=files_of(doc, tmp_path / "notes.bin", doc, names=["metrics.md", "notes.bin", "again.md"]))
    assert made.status_code == 202, made.text
    body = made.json()
    assert body["kind"] == "kb_upload" and body["status"] == "running"
    assert [i["status"] for i in body["items"]] == ["queued", "error", "duplicate"]
    assert body["items"][1]["error"]["code"] == "kb_unsupported_format"

    done, seen = _poll(second, body["task_id"], lambda t: t["status"] == "done")
    item = done["items"][0]
    assert item["status"] == "ready" and item["finished"] and item["document"]["summary"] == CITY_TOP, done
    assert done["worker"].rsplit(".", 1)[1] in _pids(team) and done["lost"] == 0
    assert {i["items"][0]["status"] for i in seen} <= {"queued", "parsing", "chunking", "embedding", "summarizing",
                                                      "ready"}
    hit = second.get("/api/kb/search", params={"q": "GMV包含运费吗"}).json()["passages"][0]
    assert hit["document"] == "metrics.md"
    listed = second.get("/api/kb/documents").json()["items"]
    assert [(d["name"], d["status"], d["queued"]) for d in listed if d["name"] == "metrics.md"] == [
        ("metrics.md", "ready", False)]

    tasks = second.get("/api/tasks").json()["items"]  # the caller's queued tasks, from the other process
    assert {"task_id": body["task_id"], "kind": "kb_upload", "status": "done", "files": 3} \
        .items() <= next(t for t in tasks if t["task_id"] == body["task_id"]).items()
    metrics = first.get("/metrics").text
    assert 'wenshu_queue_tasks{kind="kb_upload",state="finished"}' in metrics
    assert 'wenshu_queue_tasks{kind="workspace",state="running"} 0' in metrics


def test_a_worker_killed_mid_ingest_is_replaced_and_leaves_no_orphan(team, tmp_path):
    http = team.api[0].client()
    team.wait_workers()
    big = tmp_path / "handbook.md"
    big.write_text("# 会员手册\n\n" + "\n\n".join(
        f"## 第{i}条\n\n" + f"等级{i}的积分规则：订单满{i * 10}元可获得{i}倍积分，每月结算一次，过期作废。" * 4
        for i in range(400)), encoding="utf-8")
    task_id = http.post("/api/kb/documents", params={"background": "true"}, files=files_of(big)).json()["task_id"]

    def embedding(task) -> bool:
        item = task["items"][0]
        return item["status"] == "embedding" and 32 <= item.get("done", 0) < item.get("total", 0)

    running, _ = _poll(http, task_id, embedding)  # a batch embedded, more to come
    killed = running["worker"]
    os.kill(int(killed.rsplit(".", 1)[1]), signal.SIGKILL)
    done, seen = _poll(http, task_id, lambda t: t["status"] == "done")
    assert done["items"][0]["status"] == "ready" and done["lost"] == 1 and done["worker"] != killed, done
    assert {t["items"][0]["status"] for t in seen} <= {"embedding", "queued", "parsing", "chunking", "summarizing",
                                                      "ready"}
    assert not _orphans(team)  # every vector belongs to a published chunk
    docs = [d for d in http.get("/api/kb/documents").json()["items"] if d["name"] == "handbook.md"]
    assert len(docs) == 1 and docs[0]["chunk_count"] == 400, docs
    team.wait_workers()  # the killed worker was replaced


def test_a_workspace_task_runs_on_a_worker_and_every_action_works_from_any_api_process(team):
    first, second = team.api[0].client(), team.api[1].client()
    folder = calc_project(team.projects)
    before = snapshot(folder)
    made = first.post("/api/tasks", json={"kind": "workspace", "workspace": str(folder), "goal": "fix add",
                                          "max_steps": 1})
    assert made.status_code == 202 and made.json()["running"] is True, made.text
    task_id = made.json()["task_id"]
    with second.stream("GET", f"/api/tasks/{task_id}/events") as resp:  # streamed by the other process
        events = [(k, d) for k, d in parse_sse(resp.iter_lines()) if k != "ping"]
    assert [k for k, _ in events[:2]] == ["decision", "step"] and events[-1][0] == "done", events
    ended = events[-1][1]
    assert ended["steps"][0]["target"] == "baseline" and ended["status"] in ("max_steps", "stuck"), ended
    client = redis.Redis.from_url(team.redis.url)
    worker = Job.fetch(task_id, connection=client).worker_name
    assert worker.rsplit(".", 1)[1] in _pids(team)  # a worker ran it, not an API process

    resumed = second.post(f"/api/tasks/{task_id}/resume", json={"max_steps": 20})
    assert resumed.status_code == 202 and resumed.json()["running"] is True, resumed.text
    assert first.post(f"/api/tasks/{task_id}/discard").json()["error"]["code"] == "task_busy"
    first.delete(f"/api/tasks/{task_id}")  # stopped from the other process, before its next step
    stopped, _ = _poll(second, task_id, lambda t: not t["running"])
    assert stopped["status"] == "interrupted" and stopped["steps"] and snapshot(folder) == before, stopped
    nothing = second.post(f"/api/tasks/{task_id}/apply", json={"force": True})
    assert nothing.status_code == 400 and nothing.json()["error"]["code"] == "task_nothing_to_apply"
    listed = first.get("/api/tasks", params={"kind": "workspace"}).json()["items"]
    assert [(t["status"], t["running"]) for t in listed if t["task_id"] == task_id] == [("interrupted", False)]
    assert second.post(f"/api/tasks/{task_id}/discard").json() == {"task_id": task_id, "discarded": True}
    assert first.get(f"/api/tasks/{task_id}").status_code == 404 and snapshot(folder) == before
    client.close()
