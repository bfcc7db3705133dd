"""`wenshu worker`: take long questions from the task queue on Redis and answer them (docs/team.md)."""

from __future__ import annotations

import logging

import typer

from wenshu.cli.common import guarded, settings, ui_lang


def worker(
    burst: bool = typer.Option(False, "--burst", help="Stop once the queue is empty instead of waiting for more."),
) -> None:
    """Answer the questions queued by `POST /api/tasks` (and chat channels with a push_url) with this machine's
    model, one at a time; run several for several at once. Needs WENSHU_REDIS_URL (the server's)."""
    lang = ui_lang()
    s = settings()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    with guarded(lang):
        from wenshu.providers.registry import choose_provider
        from wenshu.queue.run import run_worker

        choose_provider(s)  # ModelMissing with the exact fix before the worker registers
        run_worker(s, burst=burst)
