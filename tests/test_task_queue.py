"""The task queue of a team deployment, against a real redis-server, two API servers and two `wenshu worker`
processes (fixtures_queue.py): a question task runs on a worker and is polled from either API process; a
cancel stops it; a worker killed with SIGKILL mid-question loses nothing (its question is answered again by
another worker, and once retries are spent it is marked failed with `task_worker_lost`); a slow chat-channel
question is acknowledged at once and its answer pushed to the channel's own endpoint, signed; a Redis that
is down refuses a task with `queue_unavailable` instead of hanging."""

from __future__ import annotations

import json
import os
import signal
import time

from fixtures_queue import SECRET
from fixtures_server import CITY_QUESTION, CITY_TOP
from test_server_webhook import wecom_body

from wenshu.channels.base import IncomingMessage, sign


def _kill_worker_running(team, http, task_id: str) -> str:
    """SIGKILL the worker process answering the task once it has started; the worker's name."""
    task = team.wait(task_id, http, until=("running",))
    assert task["status"] == "running" and task["worker"], task
    time.sleep(0.5)  # mid-question: the model is streaming its SQL
    os.kill(int(task["worker"].rsplit(".", 1)[1]), signal.SIGKILL)
    return task["worker"]


def _messages(team, cid: str) -> list[tuple[str, str, str | None]]:
    """(role, status, error code) of each message of the conversation, in order."""
    rows = team.api[0].state.store.conversations.messages(cid)
    return [(m.role, m.status, ((m.payload or {}).get("error") or {}).get("code")) for m in rows]


def test_a_task_runs_on_a_worker_any_api_process_polls_it_and_a_cancel_stops_it(team):
    first, second = team.api[0].client(), team.api[1].client()
    made = first.post("/api/tasks", json={"message": CITY_QUESTION})
    assert made.status_code == 202, made.text
    task_id, cid = made.json()["task_id"], made.json()["conversation_id"]
    assert second.get(f"/api/tasks/{task_id}").json()["status"] in ("queued", "running")
    busy = second.post("/api/tasks", json={"message": "再来一次", "conversation_id": cid})
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "conversation_busy"

    task = team.wait(task_id, second)
    assert task["status"] == "done" and task["result"]["sql"].startswith(CITY_TOP), task
    assert {"generate", "execute", "explain"} <= set(task["progress"]) and task["lost"] == 0
    assert _messages(team, cid) == [("user", "ok", None), ("assistant", "ok", None)]
    assert team.api[1].state.queue.view(task_id, "mallory", "en") is None  # another user's task: as unknown

    again = first.post("/api/tasks", json={"message": "每个城市的订单量Top10，按订单量排序", "conversation_id": cid})
    assert again.status_code == 202, again.text
    running = team.wait(again.json()["task_id"], first, until=("running",))
    assert running["status"] == "running"
    stopped = second.delete(f"/api/tasks/{running['task_id']}").json()
    assert stopped["status"] == "cancelled", stopped
    assert _messages(team, cid)[2:] == [("user", "ok", None), ("assistant", "stopped", None)]


def test_a_killed_worker_loses_no_question_and_no_message(team):
    http = team.api[0].client()
    made = http.post("/api/tasks", json={"message": CITY_QUESTION}).json()
    killed = _kill_worker_running(team, http, made["task_id"])
    task = team.wait(made["task_id"], http)
    assert task["status"] == "done" and task["result"]["sql"].startswith(CITY_TOP), task
    assert task["lost"] == 1 and task["worker"] != killed  # answered again, by another worker
    assert _messages(team, made["conversation_id"]) == [
        ("user", "ok", None), ("assistant", "error", "task_worker_lost"),  # the lost attempt, closed
        ("user", "ok", None), ("assistant", "ok", None)]

    team.wait_workers()  # the killed worker was replaced (WorkerProcesses restarts it)
    made = http.post("/api/tasks", json={"message": CITY_QUESTION}).json()
    first = _kill_worker_running(team, http, made["task_id"])
    team.wait(made["task_id"], http, until=("running",))  # retried ...
    while http.get(f"/api/tasks/{made['task_id']}").json()["worker"] == first:
        time.sleep(0.05)
    _kill_worker_running(team, http, made["task_id"])  # ... and lost again: queue_retries (1) are spent
    task = team.wait(made["task_id"], http)
    assert task["status"] == "error" and task["error"]["code"] == "task_worker_lost" and task["lost"] == 2, task
    zh = http.get(f"/api/tasks/{made['task_id']}", params={"lang": "zh"}).json()["error"]["message"]
    assert "工作进程" in zh and "stopped before" in task["error"]["message"]
    assert _messages(team, made["conversation_id"]) == [
        ("user", "ok", None), ("assistant", "error", "task_worker_lost")] * 2
    assert http.post("/api/tasks", json={"message": CITY_QUESTION, "conversation_id": made["conversation_id"]}
                     ).status_code == 202  # the failed task let go of its conversation


def test_a_worker_held_off_past_its_lease_stops_and_writes_nothing(team):
    team.wait_workers()
    http = team.api[0].client()
    made = http.post("/api/tasks", json={"message": CITY_QUESTION}).json()
    task = team.wait(made["task_id"], http, until=("running",))
    time.sleep(0.5)
    pid = int(task["worker"].rsplit(".", 1)[1])
    os.kill(pid, signal.SIGSTOP)  # a frozen process: its lease runs out, another worker takes the question
    try:
        while (task := http.get(f"/api/tasks/{made['task_id']}").json())["lost"] == 0:
            time.sleep(0.05)
    finally:
        os.kill(pid, signal.SIGCONT)  # it runs on, finds its question taken, and stops
    task = team.wait(made["task_id"], http)
    time.sleep(1.5)  # time for the resumed attempt to write, were it to
    task = http.get(f"/api/tasks/{made['task_id']}").json()
    assert task["status"] == "done" and task["lost"] == 1 and not task["worker"].endswith(f".{pid}"), task
    assert task["result"]["sql"].startswith(CITY_TOP)
    assert _messages(team, made["conversation_id"]) == [
        ("user", "ok", None), ("assistant", "error", "task_worker_lost"),
        ("user", "ok", None), ("assistant", "ok", None)]


def _ask_in_chat(live, chat: str):
    body = wecom_body(CITY_QUESTION, chat=chat)
    ts = str(int(time.time()))
    return live.client(timeout=60).post("/channels/webhook/team", content=body, headers={
        "X-Wenshu-Timestamp": ts, "X-Wenshu-Signature": sign(SECRET, ts, body), "Content-Type": "application/json"})


def test_a_slow_channel_question_is_acknowledged_then_pushed_signed(team):
    team.wait_workers()
    inline = _ask_in_chat(team.api[1], "patient-chat")  # this webhook waits long enough: the answer is the reply
    assert inline.status_code == 200 and f"```sql\n{CITY_TOP}" in inline.json()["mixed"]["msg_item"][0]["markdown"][
        "content"], inline.text
    started = time.monotonic()
    reply = _ask_in_chat(team.api[0], "team-chat")
    assert reply.status_code == 200 and time.monotonic() - started < 5, reply.text
    ack = reply.json()["mixed"]["msg_item"][0]["markdown"]["content"]
    assert ack.startswith("正在处理中") and "任务" in ack

    headers, pushed = team.push.received.get(timeout=60)
    headers = {k.lower(): v for k, v in headers.items()}
    assert headers["x-wenshu-signature"] == sign(SECRET, headers["x-wenshu-timestamp"], pushed)
    text = json.loads(pushed)["mixed"]["msg_item"][0]["markdown"]["content"]
    assert f"```sql\n{CITY_TOP}" in text and "| 城市 | 订单量 |" in text
    assert team.push.received.empty()  # pushed once, not also replied
    cid = IncomingMessage(CITY_QUESTION, "zhangsan", "team-chat").conversation_id("team")
    assert _messages(team, cid) == [("user", "ok", None), ("assistant", "ok", None)]


def test_a_task_while_redis_is_down_is_refused_with_a_code(server_factory, redis_factory, monkeypatch):
    from typer.testing import CliRunner

    from wenshu.cli.app import app

    redis = redis_factory()
    live = server_factory(redis_url=redis.url)
    redis.stop()
    http = live.client()
    started = time.monotonic()
    refused = http.post("/api/tasks", json={"message": CITY_QUESTION})
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "queue_unavailable", refused.text
    assert time.monotonic() - started < 5 and "Redis" in refused.json()["error"]["message"]
    assert http.post("/api/ask", json={"message": CITY_QUESTION}).status_code == 200  # answers go on in-process

    monkeypatch.delenv("WENSHU_REDIS_URL", raising=False)
    monkeypatch.setenv("WENSHU_LLM_PROVIDER", "fake")
    out = CliRunner().invoke(app, ["worker", "--burst"])
    assert out.exit_code != 0 and "queue_needs_redis" in out.output and "WENSHU_REDIS_URL" in out.output
