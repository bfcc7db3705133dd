"""Speed as a user feels it with the embedded model: cold `wenshu ask` processes and the server.

(a) First question after the datasource is added: a new WENSHU_HOME, no saved prefix; one
    `wenshu ask` pays for the prompt prefix once and says so on stderr.
(b) Cold asks: `--asks` more `wenshu ask` processes, each a new process (model load included) with
    the prefix already saved, each a different question (no result cache). Goal: median <= 8 s wall.
(c) The server (`wenshu serve`, its own process): after one warm-up question, `--server-asks` questions
    one after another over `POST /api/ask`: wall time per question against the model's own time
    (usage.model_ms). Goal: wall <= model time + 5 %. Then three questions at once over the event
    stream: every one answers, and the waiting ones hear their place in the queue.
Peak RSS of every process (the children's ru_maxrss; the server's VmHWM). Goal: <= 2.5 GB.

    python -m bench coldstart          # writes bench/results/coldstart.json
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.demo_set import load_gold
from bench.server import free_port
from bench.environment import code_commit

WENSHU = str(Path(sys.executable).parent / "wenshu")


def add_arguments(p) -> None:
    p.add_argument("--asks", type=int, default=8, help="cold `wenshu ask` processes after the first")
    p.add_argument("--server-asks", type=int, default=6, help="sequential questions to the server")
    p.add_argument("--no-prefix", action="store_true",
                   help="saved prompt prefixes off (WENSHU_MODEL_PREFIX_MAX_MB=0): every process reads the whole prompt")
    p.add_argument("--out", default="bench/results/coldstart.json")
    p.set_defaults(func=run)


def questions(n: int) -> list[str]:
    """Distinct first-turn demo questions (a follow-up needs its conversation)."""
    return [g["question"] for g in load_gold() if not g.get("followup_of")][:n]


def timed_ask(env: dict, question: str) -> dict:
    """One `wenshu ask --json` in a new process: wall time, peak RSS, what it said on stderr."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([WENSHU, "ask", question, "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far
    try:
        resp = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        resp = {"error": {"code": "no_output", "message": err[-300:]}}
    return {"question": question, "wall_s": round(wall, 2), "model_s": round(resp.get("usage", {}).get("model_ms", 0) / 1000, 2),
            "prompt_tokens": resp.get("usage", {}).get("prompt_tokens"), "error": (resp.get("error") or {}).get("code"),
            "said_prefix": "preparing the model" in err or "准备模型" in err, "peak_rss_mb_so_far": round(peak_kb / 1024)}


def vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_ready(base: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the server exited during start-up")
        time.sleep(0.2)
    raise SystemExit("the server did not start in time")


def server_part(env: dict, qs: list[str], concurrent: list[str]) -> dict:
    port = free_port()
    proc = subprocess.Popen([WENSHU, "serve", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc, timeout=300)
        http = httpx.Client(base_url=base, timeout=600)
        http.post("/api/ask", json={"message": qs[0]})  # warm-up: the model loads, the prefix is in the context
        rows = []
        for q in qs[1:]:
            t0 = time.perf_counter()
            resp = http.post("/api/ask", json={"message": q}).json()
            wall = time.perf_counter() - t0
            model = resp.get("usage", {}).get("model_ms", 0) / 1000
            rows.append({"question": q, "wall_s": round(wall, 2), "model_s": round(model, 2),
                         "overhead_pct": round(100 * (wall - model) / model, 1) if model else None,
                         "error": (resp.get("error") or {}).get("code")})
        queue = concurrent_part(base, concurrent)
        return {"sequential": rows, "concurrent": queue, "peak_rss_mb": round(vm_hwm_mb(proc.pid))}
    finally:
        proc.terminate()
        proc.wait(30)


def concurrent_part(base: str, qs: list[str]) -> list[dict]:
    """Three conversations at once: each records its queue events and how it ended."""
    out: list[dict] = [{} for _ in qs]

    def one(i: int, q: str) -> None:
        with httpx.Client(base_url=base, timeout=900) as http:
            cid = http.post("/api/conversations", json={}).json()["id"]
            t0, ahead = time.perf_counter(), []
            with http.stream("POST", f"/api/conversations/{cid}/messages", json={"message": q}) as r:
                kind = None
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        data = json.loads(line[6:])
                        if data.get("node") == "queue" and "ahead" in data:
                            ahead.append(data["ahead"])
                        if kind == "done":
                            out[i] = {"question": q, "wall_s": round(time.perf_counter() - t0, 2),
                                      "queue_ahead_seen": ahead, "status": data.get("status")}

    threads = [threading.Thread(target=one, args=(i, q)) for i, q in enumerate(qs)]
    for i, t in enumerate(threads):
        t.start()
        time.sleep(0.3)  # a fixed order of arrival
    for t in threads:
        t.join()
    return out


def run(args) -> int:
    from wenshu.settings import Settings

    commit = code_commit()
    model = Settings().resolved_model_path
    home = Path(tempfile.mkdtemp(prefix="wenshu-coldstart-"))
    env = {**os.environ, "WENSHU_HOME": str(home), "WENSHU_MODEL_PATH": str(model), "WENSHU_LLM_PROVIDER": "embedded"}
    env.pop("LLAMA_CPP_LIB_PATH", None)
    if args.no_prefix:
        env["WENSHU_MODEL_PREFIX_MAX_MB"] = "0"
    qs = questions(1 + args.asks + 1 + args.server_asks + 3)
    first = timed_ask(env, qs[0])
    print(f"first question (builds the prefix): {first['wall_s']} s, said so: {first['said_prefix']}", flush=True)
    cold = []
    for q in qs[1:1 + args.asks]:
        cold.append(timed_ask(env, q))
        print(f"cold ask: {cold[-1]['wall_s']} s (model {cold[-1]['model_s']} s)", flush=True)
    rest = qs[1 + args.asks:]
    server = server_part(env, rest[:1 + args.server_asks], rest[1 + args.server_asks:]) if args.server_asks else {
        "sequential": [], "concurrent": [], "peak_rss_mb": 0}
    walls = [c["wall_s"] for c in cold]
    seq = [r for r in server["sequential"] if r["model_s"]]
    summary = {
        "first_ask_s": first["wall_s"], "first_ask_said_prefix": first["said_prefix"],
        "cold_ask_median_s": round(statistics.median(walls), 2) if walls else None,
        "cold_ask_max_s": max(walls) if walls else None,
        "server_wall_over_model_pct_median": round(statistics.median(r["overhead_pct"] for r in seq), 1) if seq else None,
        "peak_rss_mb": max([c["peak_rss_mb_so_far"] for c in [first, *cold]] + [server["peak_rss_mb"]]),
        "concurrent_all_answered": all(c.get("status") == "ok" for c in server["concurrent"]),
        "goals": {"cold_ask_median_s": 8, "server_overhead_pct": 5, "peak_rss_mb": 2560},
    }
    result = {"summary": summary, "first": first, "cold": cold, "server": server, "commit": commit,
              "command": "python -m bench coldstart " + " ".join(sys.argv[2:]), "cpus": os.cpu_count()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1))
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0
