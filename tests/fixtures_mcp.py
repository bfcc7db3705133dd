"""Helpers of the MCP tests: the test server script (tests/mcp_servers/toolbox.py) as configured entries, and
free loopback ports for Streamable HTTP servers started in a subprocess or in a thread."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

TOOLBOX = Path(__file__).parent / "mcp_servers" / "toolbox.py"


def toolbox_entry(*mode: str) -> dict:
    """The toolbox as an mcp.json entry, started with this interpreter (which has the SDK)."""
    return {"command": sys.executable, "args": [str(TOOLBOX), *mode]}


def bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def free_port() -> int:
    with bound_socket() as sock:
        return sock.getsockname()[1]


def wait_for_port(port: int, alive=lambda: True, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and alive():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def start_toolbox_http() -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(TOOLBOX), "http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    wait_for_port(port, alive=lambda: proc.poll() is None)
    return proc, f"http://127.0.0.1:{port}/mcp"


def serve_in_thread(app) -> tuple[object, str]:
    """An ASGI app under uvicorn on a free loopback port, in a daemon thread: (uvicorn server, base URL)."""
    import uvicorn

    sock = bound_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    server.thread = thread
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"
