"""Workspace tasks over a real uvicorn server with the scripted fake model and real pytest runs:
POST /api/tasks with kind "workspace", poll with the steps, the step event stream, stop, resume, apply,
discard, errors and who may run them; the question kind of task still works as before."""

from __future__ import annotations

import time

import pytest

from fixtures_server import CITY_QUESTION, parse_sse
from tasks_support import CALC_FIXED, PATH, calc_project, flat, snapshot, step

FIX = flat(step("run_command", "ls", reason="see the files"), step("write_file", "calc.py", CALC_FIXED, reason="plus"),
           step("finish", reason="done"))


@pytest.fixture
def live(server_factory, tmp_path):
    live = server_factory(workspace_path=PATH, workspace_roots=[tmp_path])
    live.state.workspace_tasks.overrides = {"env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}}
    return live


def poll(http, task_id: str, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while (task := http.get(f"/api/tasks/{task_id}").json())["running"]:
        assert time.monotonic() < deadline, task
        time.sleep(0.05)
    return task


def test_a_workspace_task_runs_is_polled_with_its_steps_and_is_applied(live, tmp_path):
    folder = calc_project(tmp_path)
    before = snapshot(folder)
    live.model.queue(*FIX)
    http = live.client()
    created = http.post("/api/tasks", json={"kind": "workspace", "workspace": str(folder),
                                            "goal": "make the failing test pass"})  # fmt: skip
    assert created.status_code == 202, created.text
    body = created.json()
    assert body["kind"] == "workspace" and body["status"] == "queued" and body["running"] is True
    task = poll(http, body["task_id"])
    assert task["status"] == "solved" and task["message"].startswith("Done: the tests pass")
    assert [(s["action"], s["target"], s["reason"], s["ok"]) for s in task["steps"]] == [
        ("verify", "baseline", "", False), ("run_command", "ls", "see the files", True),
        ("write_file", "calc.py", "plus", True), ("finish", "", "done", True), ("verify", "finish", "", True)]
    assert "assert -1 == 5" in task["steps"][0]["summary"] and task["result"]["files"][0]["path"] == "calc.py"
    assert "+    return a + b" in task["result"]["diff"] and snapshot(folder) == before
    zh = http.get(f"/api/tasks/{body['task_id']}?lang=zh").json()
    assert zh["message"].startswith("完成")
    applied = http.post(f"/api/tasks/{body['task_id']}/apply").json()
    assert applied["status"] == "applied" and (folder / "calc.py").read_text() == CALC_FIXED
    again = http.post(f"/api/tasks/{body['task_id']}/apply")
    assert again.status_code == 400 and again.json()["error"]["code"] == "task_nothing_to_apply"
    listed = http.get("/api/tasks").json()["items"]
    assert [(t["task_id"], t["status"], t["goal"], t["workspace"], t["steps"], t["verify"]) for t in listed] == [
        (body["task_id"], "applied", "make the failing test pass", str(folder.resolve()), 5, "passed")]


def test_the_step_stream_sends_each_decision_as_it_is_taken_then_its_result_then_done(live, tmp_path):
    live.model.queue(*FIX)
    http = live.client()
    task_id = http.post("/api/tasks", json={"kind": "workspace", "workspace": str(calc_project(tmp_path)),
                                            "goal": "make the failing test pass"}).json()["task_id"]  # fmt: skip
    events, seen_running = [], None
    with http.stream("GET", f"/api/tasks/{task_id}/events") as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        for kind, data in parse_sse(resp.iter_lines()):
            if kind == "decision" and data["target"] == "finish":  # verify runs pytest: a second or so
                seen_running = http.get(f"/api/tasks/{task_id}").json()
            if kind != "ping":
                events.append((kind, data))
    assert [k for k, _ in events] == ["decision", "step"] * 5 + ["done"]
    decisions, steps = [d for k, d in events if k == "decision"], [d for k, d in events if k == "step"]
    assert decisions == [{k: s[k] for k in ("n", "action", "target", "reason")} for s in steps]
    assert [d["n"] for d in decisions] == [1, 2, 3, 4, 5] and decisions[2]["reason"] == "plus"
    # told before the result: while the last step runs, the task shows it as current; on a loaded machine the
    # step may end before that look (the stream then sends its decision just before its result)
    if len(seen_running["steps"]) == 4:
        assert seen_running["current"] == decisions[4]
    else:
        assert len(seen_running["steps"]) == 5 and seen_running["current"] is None
    done = events[-1][1]
    assert done["status"] == "solved" and done["result"]["verify"] == "passed" and done["current"] is None
    assert "+    return a + b" in done["result"]["diff"] and done["message"].startswith("Done: the tests pass")


def test_stop_resume_and_discard(server_factory, tmp_path):
    from wenshu.providers.fake import ScriptedChatModel

    live = server_factory(model=ScriptedChatModel(delay_s=0.3), workspace_path=PATH, workspace_roots=[tmp_path])
    live.state.workspace_tasks.overrides = {"env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}}
    live.model.queue(step("run_command", "ls"), step("run_command", "ls -a"), *FIX[1:])
    folder = calc_project(tmp_path)
    before = snapshot(folder)
    http = live.client()
    task_id = http.post("/api/tasks", json={"kind": "workspace", "workspace": str(folder),
                                            "goal": "make the failing test pass"}).json()["task_id"]  # fmt: skip
    deadline = time.monotonic() + 60
    while len(http.get(f"/api/tasks/{task_id}").json()["steps"]) < 2:  # the baseline ran, the model is slow
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert http.post(f"/api/tasks/{task_id}/discard").json()["error"]["code"] == "task_busy"
    http.delete(f"/api/tasks/{task_id}")
    stopped = poll(http, task_id)
    assert stopped["status"] == "interrupted" and snapshot(folder) == before
    resumed = http.post(f"/api/tasks/{task_id}/resume", json={"max_steps": 5})
    assert resumed.status_code == 202
    done = poll(http, task_id)
    made = sum(s["action"] != "verify" for s in stopped["steps"])
    assert done["status"] == "solved" and done["step_limit"] == made + 5 and snapshot(folder) == before
    refused = http.post(f"/api/tasks/{task_id}/resume")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "task_not_resumable"
    assert http.post(f"/api/tasks/{task_id}/discard").json() == {"task_id": task_id, "discarded": True}
    assert http.get(f"/api/tasks/{task_id}").status_code == 404 and snapshot(folder) == before


def test_bad_requests_and_who_may_run_workspace_tasks(server_factory, settings, tmp_path):
    from wenshu.bootstrap import open_store

    with open_store(settings) as store:
        admin, carol = store.users.create_token("alice")[1], store.users.create_token("carol")[1]
        store.users.grant("alice", "*")
        store.users.grant("carol", "demo")
    live = server_factory(workspace_path=PATH, workspace_roots=[tmp_path])
    http = live.client(admin)
    folder = str(calc_project(tmp_path))
    (tmp_path / "empty" / ".git").mkdir(parents=True)
    cases = [({"workspace": str(tmp_path / "nowhere"), "goal": "x"}, 400, "workspace_missing"),
             ({"workspace": folder, "goal": "  "}, 400, "task_goal_empty"),
             ({"workspace": str(tmp_path / "empty"), "goal": "x"}, 400, "task_workspace_empty"),
             ({"workspace": folder}, 422, "input_invalid")]  # fmt: skip
    for body, status, code in cases:
        resp = http.post("/api/tasks", json={"kind": "workspace", **body})
        assert (resp.status_code, resp.json()["error"]["code"]) == (status, code), body
    forbidden = live.client(carol).post("/api/tasks", json={"kind": "workspace", "workspace": folder, "goal": "x"})
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden"
    for path in ("/api/workspaces", "/api/tasks?kind=workspace"):  # nor may she see the folders or the tasks
        assert live.client(carol).get(path).json()["error"]["code"] == "forbidden", path
    assert live.client(carol).get("/api/tasks").json() == {"items": []}  # her own tasks: none is kept in-process
    unknown = http.get("/api/tasks/20240101-000000-abcdef")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "task_not_found"
    question = http.post("/api/tasks", json={"message": CITY_QUESTION})  # the question kind, unchanged
    assert question.status_code == 202 and set(question.json()) == {"task_id", "conversation_id"}
    assert live.wait_idle(timeout_s=90) == 0  # a busy machine: the fake model's answer still takes seconds
    assert http.get(f"/api/tasks/{question.json()['task_id']}").json()["status"] == "done"


def test_only_folders_in_the_workspace_roots_are_listed_and_accepted(server_factory, tmp_path):
    root = tmp_path / "projects"
    calc_project(root)
    outside = calc_project(tmp_path / "elsewhere")
    (root / ".cache").mkdir()
    (root / "venv").mkdir()
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "escape").symlink_to(outside)
    (root / "notes.txt").write_text("not a folder\n")
    live = server_factory(workspace_path=PATH, workspace_roots=[root, tmp_path / "no-such-root"])
    http = live.client()
    folders = http.get("/api/workspaces").json()["folders"]
    assert folders == [{"path": str(root.resolve()), "name": "projects", "root": str(root.resolve())},
                       {"path": str((root / "project").resolve()), "name": "projects/project",
                        "root": str(root.resolve())}]
    refused = [str(outside), str(root / "escape"), str(root / ".." / "elsewhere" / "project"), "project",
               str(tmp_path / "no-such-root")]
    for folder in refused:
        resp = http.post("/api/tasks", json={"kind": "workspace", "workspace": folder, "goal": "x"})
        assert resp.status_code == 403 and resp.json()["error"]["code"] == "workspace_not_allowed", folder
        assert f"The folder '{folder}' is not one this server may work in" in resp.json()["error"]["message"]
    zh = http.post("/api/tasks?lang=zh", json={"kind": "workspace", "workspace": str(outside), "goal": "x"})
    assert zh.json()["error"]["message"].startswith(f"服务器不允许在文件夹「{outside}」中工作")
    missing = http.post("/api/tasks", json={"kind": "workspace", "workspace": str(root / "nowhere"), "goal": "x"})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "workspace_missing"
    assert http.get("/api/tasks").json()["items"] == [] and not (live.state.settings.home / "tasks").exists()

    closed = server_factory(workspace_path=PATH).client()  # no workspace_roots: no workspace task over HTTP
    assert closed.get("/api/workspaces").json() == {"folders": []}
    resp = closed.post("/api/tasks", json={"kind": "workspace", "workspace": str(root / "project"), "goal": "x"})
    assert resp.status_code == 403 and resp.json()["error"]["code"] == "workspace_roots_unset"
    assert "list the folders tasks and the assistant may work in as workspace_roots" in resp.json()["error"]["message"]
