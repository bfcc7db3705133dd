"""`wenshu examples ...` (being built; see the module's owner issue)."""

from __future__ import annotations

import typer

app = typer.Typer(help="examples", no_args_is_help=True)
