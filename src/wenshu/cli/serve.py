"""`wenshu serve` (being built)."""

from __future__ import annotations


def serve() -> None:
    """Start the HTTP server."""
    raise SystemExit("not built yet")
