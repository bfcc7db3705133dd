"""A team deployment for the task-queue tests, built once per session: a real redis-server, two API servers
(uvicorn in threads of the test process; a chat webhook waits 0.5 s for a worker on the first, 30 s on the
second) and two `wenshu worker` processes (real subprocesses, the scripted
fake model from a file, slow enough to be killed mid-question), all on one WENSHU_HOME (SQLite app store),
plus a loopback HTTP endpoint that records what is pushed to the chat channel `team`. Workspace tasks may work
in folders under `team.projects` (test_task_queue_jobs.py).

    def test_x(team):
        with team.api[0].client() as http: ...
        team.wait(task_id, http)        # the task once it is no longer queued or running
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import redis
from fixtures_redis import RedisServer, _new_server
from fixtures_server import CITY_TOP, LiveServer, start_server
from tasks_support import PATH

SECRET = "team-channel-secret"
MODEL_DELAY_S = 0.1  # per streamed piece of 8 characters: CITY_TOP takes about 2.5 s
LEASE_S = 3.0  # a killed worker's question is retried after 3-4 s


class PushSink:
    """A loopback HTTP endpoint standing in for a chat robot's incoming webhook: every POST is kept."""

    def __init__(self):
        self.received: queue.Queue = queue.Queue()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                sink.received.put((dict(self.headers), body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/robot/send"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Team:
    home: Path
    projects: Path
    redis: RedisServer
    api: list[LiveServer]
    workers: object  # wenshu.queue.processes.WorkerProcesses
    push: PushSink

    def wait(self, task_id: str, http, timeout_s: float = 60.0, until=("done", "error", "cancelled")) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            task = http.get(f"/api/tasks/{task_id}").json()
            if task.get("status") in until or time.monotonic() > deadline:
                return task
            time.sleep(0.05)

    def wait_workers(self, timeout_s: float = 90.0) -> None:
        """Until every worker process (a killed one's replacement too) has registered with the queue."""
        from rq import Worker

        client = redis.Redis.from_url(self.redis.url)
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                pids = {int(w.name.rsplit(".", 1)[1]) for w in Worker.all(connection=client)}
                if set(self.workers.pids) <= pids:
                    return
                assert time.monotonic() < deadline, (f"workers {self.workers.pids} did not all register in time: "
                                                     f"registered {sorted(pids)}, exit codes "
                                                     f"{[p.poll() for p in self.workers.procs]}")
                time.sleep(0.1)
        finally:
            client.close()


@pytest.fixture(scope="session")
def team(tmp_path_factory, demo_db_file):
    from wenshu.providers.fake import ScriptedChatModel
    from wenshu.queue.processes import WorkerProcesses
    from wenshu.settings import Settings

    root = tmp_path_factory.mktemp("team")
    home, projects = root / "home", root / "projects"
    (home / "data").mkdir(parents=True)
    projects.mkdir()
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    script = root / "fake.json"
    script.write_text(json.dumps({"default": CITY_TOP, "delay_s": MODEL_DELAY_S}), encoding="utf-8")
    server = _new_server()
    push = PushSink()
    channels = {"team": {"kind": "wecom", "secret": SECRET, "push_url": push.url}}
    env = {"WENSHU_HOME": str(home), "WENSHU_REDIS_URL": server.url, "WENSHU_LLM_PROVIDER": "fake",
           "WENSHU_FAKE_SCRIPT": str(script), "WENSHU_QUEUE_LEASE_S": str(LEASE_S),
           "WENSHU_WEBHOOK_CHANNELS": json.dumps(channels), "WENSHU_RATE_LIMIT_PER_MINUTE": "0"}
    settings = Settings(home=home, redis_url=server.url, rate_limit_per_minute=0, queue_lease_s=LEASE_S,
                        webhook_channels=channels, channel_reply_wait_s=0.5, workspace_roots=[projects],
                        workspace_path=PATH)
    api = [start_server(settings, ScriptedChatModel(default=CITY_TOP))]  # the first migrates the store
    patient = settings.model_copy(update={"channel_reply_wait_s": 30.0})  # its webhook outwaits a worker
    api.append(start_server(patient, ScriptedChatModel(default=CITY_TOP)))
    workers = WorkerProcesses(2, env=os.environ | env).start()
    for live in api:  # pytest in a task's copy: only this interpreter's plugins
        live.state.workspace_tasks.overrides = {"env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}}
    team = Team(home, projects, server, api, workers, push)
    try:
        team.wait_workers()
        yield team
    finally:
        workers.stop(grace_s=5)
        for live in api:
            live.stop()
        push.close()
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)
