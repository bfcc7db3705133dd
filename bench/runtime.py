"""Raw speed of the embedded runtime per CPU backend and thread count (docs/runtime.md).

Each configuration runs in its own process (the CPU backend is chosen before llama_cpp loads): prompt
tokens/s for 512 tokens at the start of the context and for 550 tokens after 1,500 (where a question's
own part sits behind the saved prefix), and generation tokens/s for 64 greedy tokens after that.

    python -m bench runtime          # writes bench/results/runtime.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.environment import code_commit

CHILD = r"""
import json, os, sys, time
from wenshu.providers.runtime import select_library
choice = select_library(sys.argv[2])
from llama_cpp import Llama
threads = int(sys.argv[3])
llm = Llama(model_path=sys.argv[1], n_ctx=4096, n_threads=threads, n_threads_batch=os.cpu_count(), verbose=False)
text = "SELECT c.city_name, SUM(o.pay_amount) FROM orders o JOIN cities c ON c.city_id = o.city_id GROUP BY 1; "
toks = llm.tokenize((text * 150).encode())[:2050]
t = time.perf_counter(); llm.eval(toks[:512]); start = 512 / (time.perf_counter() - t)
llm.eval(toks[512:1500])
t = time.perf_counter(); llm.eval(toks[1500:2050]); later = 550 / (time.perf_counter() - t)
t = time.perf_counter()
for _ in range(64):
    llm.eval([llm.sample(temp=0.0)])
gen = 64 / (time.perf_counter() - t)
print(json.dumps({"variant": choice.variant, "threads": threads, "prompt_tps_at_start": round(start, 1),
                  "prompt_tps_after_1500": round(later, 1), "generation_tps": round(gen, 1)}))
"""


def add_arguments(p) -> None:
    p.add_argument("--out", default="bench/results/runtime.json")
    p.set_defaults(func=run)


def run(args) -> int:
    from wenshu.providers.runtime import build_info
    from wenshu.settings import Settings

    model = str(Settings().resolved_model_path)
    variants = ["base", *(build_info().get("variants") or {})]
    cores = os.cpu_count() or 1
    env = {k: v for k, v in os.environ.items() if k != "LLAMA_CPP_LIB_PATH"}
    rows = []
    for variant in variants:
        for threads in sorted({max(1, cores // 2), cores}):
            done = subprocess.run([sys.executable, "-c", CHILD, model, variant, str(threads)], env=env,
                                  capture_output=True, text=True, timeout=600)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(row, flush=True)
            rows.append(row)
    out = {"rows": rows, "cpus": cores, "commit": code_commit(), "command": "python -m bench runtime"}
    Path(args.out).write_text(json.dumps(out, indent=1))
    return 0
