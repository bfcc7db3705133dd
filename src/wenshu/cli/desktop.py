"""`wenshu desktop`: the web UI in a native window, on the local server.

If a Wenshu server already answers on the port, the window opens on it and leaves it running. Otherwise
the command starts the same server `wenshu serve` runs (its `check_ready` and `build_server`) in a thread
of this process, opens the window, and stops that server when the window closes.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from urllib.parse import quote

import typer

from wenshu.cli.common import console, guarded, settings, ui_lang
from wenshu.cli.serve import build_server, check_ready
from wenshu.cli.window import gui_backend, open_window
from wenshu.cli.window_errors import PortInUse

HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0  # the app's startup (store, catalog, KB resume) before the port listens


def _is_wenshu(base: str) -> bool:
    """Whether a Wenshu server answers its health check at `base` (proxies bypassed: it is loopback)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(base + "healthz", timeout=3) as resp:
            return resp.status == 200 and json.loads(resp.read()).get("status") == "ok"
    except (OSError, ValueError):
        return False


def _port_taken(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((HOST, port)) == 0


def _check_datasource(s, name: str) -> None:
    from wenshu.bootstrap import open_store

    store = open_store(s)
    try:
        store.datasources.get(name)  # UnknownDatasource with the known names
    finally:
        store.close()


class _ServerThread:
    """The app's uvicorn server in a daemon thread (the window needs the main thread)."""

    def __init__(self, server) -> None:
        self.server = server
        self.thread = threading.Thread(target=server.run, name="wenshu-server", daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(1)  # uvicorn has already said why (e.g. the port could not be bound)
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def desktop(
    db: str = typer.Option(None, "--db", help="Datasource to select in the window (default: the server's)."),
    port: int = typer.Option(8765, "--port", help="TCP port of the local server (started if none runs there)."),
) -> None:
    """Open the web UI in a native window; starts the local server if needed and stops it on close."""
    lang = ui_lang()
    s = settings()
    with guarded(lang):
        gui = gui_backend(os.environ)  # nothing starts when no window can open
        base = f"http://{HOST}:{port}/"
        reuse = _is_wenshu(base)
        if not reuse:
            if _port_taken(port):
                raise PortInUse(port)
            check_ready(s, HOST)  # also registers the demo database, so `--db demo` works on a fresh home
        if db:
            _check_datasource(s, db)
        running = None
        if reuse:
            console.print(f"Opening the Wenshu server already running at [bold]{base}[/]; it keeps running.",
                          highlight=False, soft_wrap=True)
        else:
            running = _ServerThread(build_server(s, HOST, port, "closing the window stops it."))
            running.start()
        try:
            open_window(base + (f"?db={quote(db)}" if db else ""), gui, s.home / "desktop")
        finally:
            if running is not None:
                running.stop()
                console.print("Window closed; the server it started has stopped.", highlight=False)
