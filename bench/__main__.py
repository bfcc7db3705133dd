"""Entry point: `python -m bench COMMAND [options]`; each command lives in its own module and
registers itself with `add_arguments(subparser)`."""

from __future__ import annotations

import argparse
import os
import sys

import importlib


# command -> one-line help; the module bench/<command>.py defines add_arguments(parser).
COMMANDS = {
    "perf": "latency, peak RSS and time outside the model on demo questions",
    "sql": "execution accuracy: the pipeline and a one-prompt baseline, same model",
    "replay": "two runs' stored SQL replayed without the model: each alone, the oracle, and two ways to combine them",
    "rewrite": "a SQL rewrite replayed on a run's stored answers without the model: changed, gained, lost",
    "report": "Markdown tables of accuracy results for the README",
    "guard": "SQL guard validation time (layers 1-3) over the Spider dev gold queries",
    "readonly": "overhead of the read-only connection (layer 4) versus a plain connection, Spider dev gold queries",
    "recall": "schema recall: gold tables/columns recalled, block tokens, index build time and latency",
    "runtime": "embedded runtime speed per CPU backend and thread count (prompt and generation tokens/s)",
    "coldstart": "embedded model as a user feels it: cold `wenshu ask` processes, the server, peak RSS",
    "scope": "the scope check: in-scope questions refused (false) and off-topic questions refused (true)",
    "tools": "the assistant's first step: the right tool with valid arguments, and steps that parse",
    "agent_cost": "a data question through the assistant against the pipeline directly: extra time, same SQL",
    "server": "HTTP server: overhead for a cached answer, concurrent streaming conversations (fake model)",
    "kb": "knowledge base: passage recall@1/@5 and MRR, ingest seconds of a long PDF; --answers: grounded answers",
    "route": "the assistant's route only: documents questions to the documents, data questions to the data (no model)",
    "tasks": "workspace tasks: solved %%, steps, seconds, writes outside the folder, edited tests",
    "plan_misses": "the plan path's wrong answers: which one part of the plan, changed alone, makes each right (no model)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"bench.{name}")
        module.add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(argv)
    # Benchmarks measure answering: a question asked twice (a pair in agent_cost, a repeat across sets) must
    # not come back from the answer cache. `bench server` measures the cache and turns it on for itself.
    os.environ.setdefault("WENSHU_ANSWER_CACHE_TTL_S", "0")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
