"""Entry point: `python -m bench perf [options]`."""

from __future__ import annotations

import argparse
import sys

from bench import perf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    sub = parser.add_subparsers(dest="command", required=True)
    perf.add_arguments(sub.add_parser("perf", help="latency, peak RSS and time outside the model on demo questions"))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
