"""N `wenshu worker` processes beside the server (`wenshu serve --workers N`), or beside a benchmark.

    workers = WorkerProcesses(2, env=os.environ | {...}).start()
    ...
    workers.stop()        # SIGTERM, then SIGKILL after `grace_s`

Each worker is a process of its own (`python -m wenshu.cli.app worker`), so N workers answer N questions at
once on N cores. A worker that exits while the set runs is started again (at most once per `RESTART_S`), with
one warning; its question, if it had one, is retried by the queue itself (host.py).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

log = logging.getLogger("wenshu.queue")
RESTART_S = 2.0
COMMAND = [sys.executable, "-m", "wenshu.cli.app", "worker"]


class WorkerProcesses:
    def __init__(self, count: int, env: dict[str, str] | None = None, *, restart: bool = True,
                 command: list[str] | None = None):
        self.count = count
        self.env = env
        self.restart = restart
        self.command = command or COMMAND
        self.procs: list[subprocess.Popen] = []
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def _spawn(self) -> subprocess.Popen:
        return subprocess.Popen(self.command, env=self.env, stdin=subprocess.DEVNULL)

    def start(self) -> WorkerProcesses:
        self.procs = [self._spawn() for _ in range(self.count)]
        if self.restart:
            self._watcher = threading.Thread(target=self._watch, name="wenshu-workers", daemon=True)
            self._watcher.start()
        return self

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def _watch(self) -> None:
        while not self._stop.wait(RESTART_S):
            for i, proc in enumerate(self.procs):
                if proc.poll() is not None and not self._stop.is_set():
                    log.warning("worker %d exited with %s; starting another", proc.pid, proc.returncode)
                    self.procs[i] = self._spawn()

    def stop(self, grace_s: float = 10.0) -> None:
        """Stop every worker: SIGTERM (RQ's warm shutdown), SIGKILL for those still running after `grace_s`."""
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=RESTART_S + 1)
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
