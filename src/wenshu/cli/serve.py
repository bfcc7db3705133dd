"""`wenshu serve`: the HTTP API, the event streams and the web UI on one port."""

from __future__ import annotations

import typer

from wenshu.cli.common import console, guarded, progress_bar, report, settings, ui_lang


def _display_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def check_ready(s, host: str) -> None:
    """Check the shared Redis (when set), build the demo DB, make sure a model is configured and that a public
    bind has auth."""
    from wenshu.bootstrap import ensure_demo, open_store
    from wenshu.errors import AuthNotConfigured
    from wenshu.providers.registry import choose_provider
    from wenshu.server.auth import is_loopback
    from wenshu.storage.redis_link import check_redis

    if s.redis_url:
        check_redis(s.redis_url)  # RedisUnusable: a bad URL, no answer, or a Redis older than 5.0
    store = open_store(s)
    try:
        with progress_bar() as progress:
            ensure_demo(s, store, progress=progress)
        if not is_loopback(host) and not store.users.any_active():
            report(AuthNotConfigured(), ui_lang())
            raise SystemExit(2)
    finally:
        store.close()
    choose_provider(s)  # ModelMissing with the exact fix when no model is available


def build_server(s, host: str, port: int, stops_it: str):
    """The uvicorn server of the app (not started); once listening it prints its address and `stops_it`."""
    import uvicorn

    from wenshu.server import create_app

    url = f"http://{_display_host(host)}:{port}/"

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets)
            if self.started:
                console.print(f"Wenshu (问数) is running at [bold]{url}[/]  (API: {url}docs) — {stops_it}",
                              highlight=False, soft_wrap=True)  # one line, so the URL is never broken

    config = uvicorn.Config(create_app(s, bind_host=host), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=10)
    return Server(config)


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; anything but loopback needs a token."),
    port: int = typer.Option(8765, "--port", help="TCP port."),
    workers: int = typer.Option(0, "--workers", min=0, help="Also start N `wenshu worker` processes for the task "
                                "queue (needs WENSHU_REDIS_URL); they stop with the server."),
) -> None:
    """Start the HTTP server (REST + Server-Sent Events + the web UI); Ctrl-C stops it."""
    from wenshu.queue.errors import QueueNeedsRedis
    from wenshu.queue.processes import WorkerProcesses

    lang = ui_lang()
    s = settings()
    with guarded(lang):
        if workers and not s.redis_url:
            raise QueueNeedsRedis()
        check_ready(s, host)
        server = build_server(s, host, port, "Ctrl-C stops it.")
        procs = WorkerProcesses(workers).start() if workers else None
        try:
            server.run()
        finally:
            if procs is not None:
                procs.stop()
        if not server.started:
            raise SystemExit(1)
