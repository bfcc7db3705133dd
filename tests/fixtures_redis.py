"""A real Redis for the tests: Debian's `redis-server`, started in a temporary directory on a free port.

`redis_server` is one server for the session; `redis_url` is its URL with the database emptied first (each
test starts clean). `redis_factory()` starts a server of the test's own, which the test may stop and start
again on the same port (the fault tests). Nothing is saved to disk. A missing `redis-server` skips the
tests, unless `WENSHU_REQUIRE_SERVERS=1` (set by `make test`), where it fails loudly.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from fixtures_servers import free_port, missing

READY_TIMEOUT_S = 10


@dataclass
class RedisServer:
    port: int
    base: Path
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(binary).exists():
            missing("redis-server not found (Debian package redis-server: make system-deps)")
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.base), "--save", "",
             "--appendonly", "no", "--logfile", str(self.base / "redis.log"), "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + READY_TIMEOUT_S
        try:
            while True:
                try:
                    client.ping()
                    return self
                except redis.ConnectionError:
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        log = (self.base / "redis.log").read_text(errors="replace")[-800:]
                        self.stop()
                        raise RuntimeError(f"redis-server did not start: {log}") from None
                    time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None


def _new_server() -> RedisServer:
    base = Path(tempfile.mkdtemp(prefix="wenshu-redis-", dir="/tmp"))
    try:
        return RedisServer(free_port(), base).start()
    except RuntimeError as err:
        shutil.rmtree(base, ignore_errors=True)
        missing(str(err))


@pytest.fixture(scope="session")
def redis_server():
    server = _new_server()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)


@pytest.fixture
def redis_url(redis_server) -> str:
    """The session server's URL, its database emptied first."""
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushdb()
    finally:
        client.close()
    return redis_server.url


@pytest.fixture
def redis_factory():
    """start() -> RedisServer of this test's own (stop()/start() it at will); all are stopped at teardown."""
    started: list[RedisServer] = []

    def start() -> RedisServer:
        started.append(_new_server())
        return started[-1]

    yield start
    for server in started:
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)
