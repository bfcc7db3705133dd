"""Server performance against the scripted fake model (no real model: this measures the server itself).

The server runs as its own process (`create_app` under uvicorn, temporary WENSHU_HOME, fake provider
answering every question with the same SQL), so its RSS is its own and the client cannot share its GIL.

(a) A cached answer: one first question fills the answer cache (agent/answer_cache.py), then is asked
    `--requests` times over HTTP (`POST /api/ask`, `POST /v1/chat/completions`: new conversations) and as many
    times through `Agent.ask` in this process on a copy of the home. Goal: the HTTP p50 itself <= 10 ms on both
    paths (`cached_answer_p50_ms`); beside it the overhead p50(HTTP) - p50(direct).
(b) `--streams` conversations (default 50) each ask again and again over the event stream (the first ask
    from the answer cache, the follow-ups through the graph) for `--seconds` (default 60): errors, time to
    the first event (p50/p99, goal p99 <= 500 ms; that is the `queue` step the server sends once it
    accepted the answer), time to the first graph event (a worker started the answer: the queue wait
    included), answers a second, and the server's RSS at the start, middle and end (goal: flat). The load
    average at start and end says how busy the machine was: other work on it skews every number.

    python -m bench server --seconds 60            # writes bench/results/server.json
    python -m bench server --queue                 # one worker vs two (bench/server_queue.py)
    python -m bench server --team                  # (a), (b): 2 API processes, 2 workers, Redis (server_team.py)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

QUESTION = "每个城市的订单量Top10"
SQL = ("SELECT c.city_name AS 城市, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id = c.city_id "
       "GROUP BY c.city_name ORDER BY 订单量 DESC LIMIT 10")
SERVER_CODE = ("import sys, uvicorn; from wenshu.server import create_app; "
               "uvicorn.run(create_app(), host='127.0.0.1', port=int(sys.argv[1]), log_level='warning')")


def add_arguments(p) -> None:
    p.add_argument("--requests", type=int, default=100, help="cached-answer requests per path in part (a)")
    p.add_argument("--streams", type=int, default=50, help="concurrent streaming conversations in part (b)")
    p.add_argument("--seconds", type=float, default=60.0, help="duration of part (b)")
    p.add_argument("--workers", type=int, default=None,
                   help="WENSHU_SERVER_WORKERS for the server (default: its own, auto: one per CPU core)")
    p.add_argument("--queue", action="store_true", help="instead: task-queue throughput with one worker and with "
                   "two on a CPU-bound fake workload (bench/server_queue.py; needs redis-server)")
    p.add_argument("--team", action="store_true", help="(a) and (b) on a team deployment: two API processes and two "
                   "workers on one Redis, the streams spread over both (bench/server_team.py; needs redis-server)")
    p.add_argument("--tasks", type=int, default=24, help="--queue: questions per worker count")
    p.add_argument("--cpu-s", type=float, default=0.5, help="--queue: CPU seconds the fake model burns per answer")
    p.add_argument("--out", default=None, help="default bench/results/server.json (--queue: queue_throughput.json, "
                   "--team: server_team.json)")
    p.set_defaults(func=run)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_home(root: Path) -> dict[str, str]:
    """A home with the demo DB and a fake-model script; the environment that points at them."""
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.settings import Settings

    script = root / "fake.json"
    script.write_text(json.dumps({"responses": [], "default": SQL}), encoding="utf-8")
    env = {"WENSHU_HOME": str(root / "home"), "WENSHU_LLM_PROVIDER": "fake", "WENSHU_FAKE_SCRIPT": str(script),
           "WENSHU_RATE_LIMIT_PER_MINUTE": "0", "WENSHU_ANSWER_CACHE_TTL_S": "3600"}
    settings = Settings(home=Path(env["WENSHU_HOME"]))
    store = open_store(settings)
    ensure_demo(settings, store)
    store.close()
    return env


def start_server(env: dict[str, str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", SERVER_CODE, str(port)], env=os.environ | env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the server exited during start-up")
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start within 120 s")


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def direct_agent(root: Path, env: dict[str, str]):
    """An Agent in this process on a copy of the server's home (same data), its cache warmed; and a closer."""
    from wenshu.agent.service import Agent
    from wenshu.bootstrap import open_store
    from wenshu.contracts import AgentRequest
    from wenshu.providers.registry import resolve
    from wenshu.settings import Settings

    copy = root / "direct"
    shutil.copytree(env["WENSHU_HOME"], copy)
    os.environ["WENSHU_FAKE_SCRIPT"] = env["WENSHU_FAKE_SCRIPT"]
    settings = Settings(home=copy, llm_provider="fake", answer_cache_ttl_s=3600)
    store = open_store(settings)
    agent = Agent(settings, store, models=resolve(settings))
    for _ in range(2):
        resp = agent.ask(AgentRequest(message=QUESTION))
    assert from_answer_cache(resp.model_dump(mode="json")), resp
    return (lambda: agent.ask(AgentRequest(message=QUESTION))), store.close


def from_answer_cache(response: dict) -> bool:
    """An AgentResponse (as JSON) the answer cache answered: no graph ran."""
    return response.get("error") is None and [t["node"] for t in response.get("trace") or []] == ["answer_cache"]


def overhead(base: str, root: Path, env: dict[str, str], n: int) -> dict:
    """The three paths interleaved request by request, so a change in machine load hits them alike."""
    ask_direct, close = direct_agent(root, env)
    times: dict[str, list[float]] = {"api": [], "openai": [], "direct": []}
    chat = {"model": "wenshu", "messages": [{"role": "user", "content": QUESTION}]}
    with httpx.Client(base_url=base, timeout=60) as http:
        for _ in range(2):
            warm = http.post("/api/ask", json={"message": QUESTION}).json()
        assert from_answer_cache(warm), warm
        for _ in range(n):
            times["api"].append(timed(lambda: http.post("/api/ask", json={"message": QUESTION}).raise_for_status()))
            times["openai"].append(timed(lambda: http.post("/v1/chat/completions", json=chat).raise_for_status()))
            times["direct"].append(timed(ask_direct))
    close()
    p50 = {k: round(statistics.median(v), 2) for k, v in times.items()}
    return {"requests": n, "p50_ms": p50, "cached_answer_p50_ms": {"api": p50["api"], "openai": p50["openai"]},
            "overhead_p50_ms": {"api": round(p50["api"] - p50["direct"], 2),
                                "openai": round(p50["openai"] - p50["direct"], 2)},
            "p90_ms": {k: round(pct(v, 90), 2) for k, v in times.items()}}


async def one_stream(http: httpx.AsyncClient, cid: str, stats: dict) -> None:
    """One answer over the event stream: time to the first event (the queue step, sent on acceptance),
    to the first graph event (a worker runs the answer), to the end; and whether it ended ok."""
    t0 = time.perf_counter()
    first, graph, status, failed = None, None, None, False
    async with http.stream("POST", f"/api/conversations/{cid}/messages", json={"message": QUESTION}) as resp:
        if resp.status_code != 200:
            stats["errors"].append(f"HTTP {resp.status_code}")
            await resp.aread()
            return
        event = None
        async for line in resp.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
                if first is None:
                    first = (time.perf_counter() - t0) * 1000
            elif not line.startswith("data:"):
                continue
            elif event == "error":
                failed = True
            elif event == "done":
                status = json.loads(line[5:]).get("status")
            elif event == "node" and graph is None and json.loads(line[5:]).get("node") != "queue":
                graph = (time.perf_counter() - t0) * 1000
    if first is not None:
        stats["ttfe"].append(first)
    if graph is not None:
        stats["graph"].append(graph)
    if failed or status != "ok":
        stats["errors"].append(f"done status {status}, error event {failed}")
    else:
        stats["answers"] += 1
    stats["latency"].append((time.perf_counter() - t0) * 1000)


async def stream_worker(base: str, deadline: float, stats: dict) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        cid = (await http.post("/api/conversations", json={})).json()["id"]
        while time.monotonic() < deadline:
            try:
                await one_stream(http, cid, stats)
            except httpx.HTTPError as err:
                stats["errors"].append(type(err).__name__)


def total_rss(pids: list[int]) -> float:
    return round(sum(rss_mb(pid) for pid in pids), 1)


async def sample_rss(pids: list[int], seconds: float, samples: dict) -> None:
    samples["start"] = total_rss(pids)
    await asyncio.sleep(seconds / 2)
    samples["middle"] = total_rss(pids)


def streams(bases: list[str], pids: list[int], n: int, seconds: float) -> dict:
    """`n` conversations streaming answers for `seconds`, spread over the servers at `bases` (whose processes
    are `pids`: their RSS, summed)."""
    stats: dict = {"ttfe": [], "graph": [], "latency": [], "errors": [], "answers": 0}
    rss: dict = {}

    async def main() -> None:
        deadline = time.monotonic() + seconds
        await asyncio.gather(sample_rss(pids, seconds, rss),
                             *(stream_worker(bases[i % len(bases)], deadline, stats) for i in range(n)))

    t0 = time.monotonic()
    asyncio.run(main())
    rss["end"] = total_rss(pids)
    elapsed = time.monotonic() - t0
    return {"streams": n, "seconds": round(elapsed, 1), "answers": stats["answers"],
            "answers_per_s": round(stats["answers"] / elapsed, 1), "errors": len(stats["errors"]),
            "error_kinds": sorted(set(stats["errors"]))[:10],
            "ttfe_ms": {"p50": round(pct(stats["ttfe"], 50), 1), "p99": round(pct(stats["ttfe"], 99), 1)},
            "first_graph_event_ms": {"p50": round(pct(stats["graph"], 50), 1),
                                     "p99": round(pct(stats["graph"], 99), 1)},
            "answer_ms": {"p50": round(pct(stats["latency"], 50), 1), "p99": round(pct(stats["latency"], 99), 1)},
            "rss_mb": rss}


def server_workers(requested: int | None) -> int:
    """The answer workers the bench server runs with (its own default when not given)."""
    from wenshu.server.app import answer_workers
    from wenshu.settings import Settings

    return answer_workers(Settings(llm_provider="fake", server_workers=requested or 0))


def run(args) -> int:
    if args.queue:
        from bench import server_queue

        args.out = args.out or "bench/results/queue_throughput.json"
        return server_queue.run(args)
    if args.team:
        from bench import server_team

        args.out = args.out or "bench/results/server_team.json"
        return server_team.run(args)
    args.out = args.out or "bench/results/server.json"
    load_start = [round(x, 2) for x in os.getloadavg()]  # other work on the machine skews every number
    root = Path(tempfile.mkdtemp(prefix="wenshu-bench-server-"))
    env = prepare_home(root)
    if args.workers:
        env["WENSHU_SERVER_WORKERS"] = str(args.workers)
    port = free_port()
    proc = start_server(env, port)
    base = f"http://127.0.0.1:{port}"
    try:
        result = {"cached_overhead": overhead(base, root, env, args.requests),
                  "concurrent_streams": streams([base], [proc.pid], args.streams, args.seconds),
                  "server_workers": server_workers(args.workers), "cpus": os.cpu_count(),
                  "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
    result["load_average_at_start"] = load_start
    return report(result, args.out)


def report(result: dict, path: str) -> int:
    """The goals of parts (a) and (b) added to `result`, which is written to `path` and printed."""
    over, conc = result["cached_overhead"], result["concurrent_streams"]
    rss = conc["rss_mb"]
    result["goals"] = {"cached_answer_p50_le_10ms": max(over["cached_answer_p50_ms"].values()) <= 10,
                       "overhead_p50_le_10ms": over["overhead_p50_ms"]["api"] <= 10,
                       "zero_errors": conc["errors"] == 0, "ttfe_p99_le_500ms": conc["ttfe_ms"]["p99"] <= 500,
                       "rss_flat": rss["end"] - rss["middle"] <= max(20.0, 0.1 * rss["middle"])}
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0
