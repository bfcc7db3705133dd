"""`wenshu db recall` (being built)."""

from __future__ import annotations


def recall() -> None:
    """Show which tables and columns a question recalls."""
    raise SystemExit("not built yet")
