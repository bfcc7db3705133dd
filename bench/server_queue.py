"""Task-queue throughput: one `wenshu worker` against two, on a CPU-bound fake workload (issue 18's goal:
two workers answer at least 1.6 times as many questions a second as one).

A redis-server (Debian's) and the API server run as processes of their own on a temporary WENSHU_HOME; the
scripted fake model burns `--cpu-s` seconds of CPU per call (`cpu_s`, a busy loop; the demo question makes three
calls with the semantic path off), on top of the pipeline's own work (about 0.06 s once warm), so an answer is
CPU work in its worker process: about 1.5 s of CPU at the default 0.5. For each worker count the bench starts the workers,
answers one warm-up question per worker, then submits `--tasks` questions (each in its own conversation) over
`POST /api/tasks` and polls `GET /api/tasks/{id}` until all are done: questions a second = tasks / seconds.
Every worker count runs on the same machine with whatever else runs on it: the load average is recorded.

    python -m bench server --queue --tasks 24 --cpu-s 0.5 --out bench/results/queue_throughput.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.server import QUESTION, SQL, free_port, prepare_home, start_server


def start_redis(root: Path) -> tuple[subprocess.Popen, str]:
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(root), "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    return proc, f"redis://127.0.0.1:{port}/0"


def wait_workers(url: str, count: int, timeout_s: float = 120) -> None:
    import redis
    from rq import Worker

    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout_s
    while Worker.count(connection=client) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"{count} workers did not register within {timeout_s} s")
        time.sleep(0.2)
    client.close()


def answer_all(http: httpx.Client, n: int) -> tuple[float, int]:
    """Submit n questions at once and wait for all; (seconds, errors). The tasks are polled one at a time in the
    order they were queued (in which the workers take them), ten times a second: polling every task in a loop
    would take CPU from the workers being measured."""
    t0 = time.perf_counter()
    ids = [http.post("/api/tasks", json={"message": QUESTION}).json()["task_id"] for _ in range(n)]
    errors = 0
    for task_id in ids:
        while (status := http.get(f"/api/tasks/{task_id}").json()["status"]) in ("queued", "running"):
            time.sleep(0.1)
        errors += status != "done"
    return time.perf_counter() - t0, errors


def measure(base: str, env: dict[str, str], workers: int, tasks: int) -> dict:
    from wenshu.queue.processes import WorkerProcesses

    procs = WorkerProcesses(workers, env=os.environ | env, restart=False).start()
    try:
        wait_workers(env["WENSHU_REDIS_URL"], workers)
        with httpx.Client(base_url=base, timeout=60) as http:
            answer_all(http, workers)  # warm-up: each worker's first answer loads what it loads lazily
            seconds, errors = answer_all(http, tasks)
    finally:
        procs.stop()
    time.sleep(1.0)  # the stopped workers' registrations expire from RQ's count
    return {"workers": workers, "tasks": tasks, "seconds": round(seconds, 2), "errors": errors,
            "answers_per_s": round(tasks / seconds, 3)}


def run(args) -> int:
    load_start = [round(x, 2) for x in os.getloadavg()]
    root = Path(tempfile.mkdtemp(prefix="wenshu-bench-queue-"))
    env = prepare_home(root)
    (root / "fake.json").write_text(json.dumps({"default": SQL, "cpu_s": args.cpu_s}), encoding="utf-8")
    redis_proc, url = start_redis(root)
    env |= {"WENSHU_REDIS_URL": url, "WENSHU_SEMANTIC_PATH": "0",  # free SQL: one model call per answer
            "WENSHU_ANSWER_CACHE_TTL_S": "0"}  # the same question each time: answered, not served from the cache
    port = free_port()
    api = start_server(env, port)
    try:
        runs = [measure(f"http://127.0.0.1:{port}", env, n, args.tasks) for n in (1, 2)]
    finally:
        api.terminate()
        api.wait(timeout=30)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
    speedup = round(runs[1]["answers_per_s"] / runs[0]["answers_per_s"], 2)
    result = {"cpu_s_per_answer": args.cpu_s, "runs": runs, "speedup_2_over_1": speedup, "cpus": os.cpu_count(),
              "load_average_at_start": load_start, "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
              "goals": {"speedup_ge_1_6": speedup >= 1.6, "zero_errors": all(r["errors"] == 0 for r in runs)}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0
