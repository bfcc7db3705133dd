"""Benchmarks: `python -m bench perf` (latency, memory, time outside the model). Never part of `make test`."""
