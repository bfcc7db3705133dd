"""The server bench (bench/server.py's parts (a) and (b)) on a team deployment: a redis-server (Debian's), two
API processes and two `wenshu worker` processes on one temporary WENSHU_HOME (SQLite app store) and one Redis,
with the scripted fake model (issue 18's goals: 50 streams for 60 s with 0 errors and p99 time to the first
event <= 500 ms; a cached answer over HTTP at p50 <= 10 ms).

(a) The cached answer: bench/server.py's part (a) on the first API process (the cached answer's p50 over HTTP,
    and its overhead against `Agent.ask` in this process), then `--requests` cached answers over HTTP from the
    second one, whose answers come from the answer cache the first filled in Redis (`cached_shared_p50_ms`).
(b) `--streams` conversations, spread over the two API processes in turn, each asking again and again over the
    event stream for `--seconds`: errors, time to the first event p50/p99, answers a second, the summed RSS of
    both API processes. Event streams are answered in the API process that took them (docs/team.md): the
    workers run beside them, as in `make run-team`, and take only queued tasks.

    python -m bench server --team --streams 50 --seconds 60      # writes bench/results/server_team.json
    python -m bench server --team --streams 5 --seconds 5 --requests 20 --out /tmp/team.json   # a smoke run
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from bench.server import (QUESTION, free_port, from_answer_cache, overhead, prepare_home, report, start_server,
                          streams, timed)
from bench.server_queue import start_redis, wait_workers

API_PROCESSES = 2
WORKERS = 2


def cached_p50(base: str, n: int) -> float:
    """p50 of `n` cached answers over HTTP (POST /api/ask), in ms."""
    with httpx.Client(base_url=base, timeout=60) as http:
        warm = http.post("/api/ask", json={"message": QUESTION}).json()
        assert from_answer_cache(warm), warm  # the first API process's answer, shared through Redis
        times = [timed(lambda: http.post("/api/ask", json={"message": QUESTION}).raise_for_status())
                 for _ in range(n)]
    return round(statistics.median(times), 2)


def run(args) -> int:
    from wenshu.queue.processes import WorkerProcesses

    load_start = [round(x, 2) for x in os.getloadavg()]
    root = Path(tempfile.mkdtemp(prefix="wenshu-bench-team-"))
    env = prepare_home(root)
    redis_proc, url = start_redis(root)
    env["WENSHU_REDIS_URL"] = url
    if args.workers:
        env["WENSHU_SERVER_WORKERS"] = str(args.workers)
    api, workers = [], None
    try:
        ports = [free_port() for _ in range(API_PROCESSES)]
        api = [start_server(env, port) for port in ports]  # one after the other: the first migrates the store
        workers = WorkerProcesses(WORKERS, env=os.environ | env, restart=False).start()
        wait_workers(url, WORKERS)
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        over = overhead(bases[0], root, env, args.requests)
        over["cached_shared_p50_ms"] = cached_p50(bases[1], args.requests)
        result = {"api_processes": API_PROCESSES, "workers": WORKERS, "cached_overhead": over,
                  "concurrent_streams": streams(bases, [p.pid for p in api], args.streams, args.seconds),
                  "cpus": os.cpu_count(), "load_average_at_start": load_start,
                  "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    finally:
        if workers is not None:
            workers.stop()
        for proc in api:
            proc.terminate()
            proc.wait(timeout=30)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)
    return report(result, args.out)
