"""Run a command in the workspace: only from an allowlist, as an argument list without a shell, with
a time limit and a scrubbed environment.

An allowlist entry is an argument-list prefix ("pytest", "python -m pytest", "npm test"): a command is
allowed when its first arguments are exactly one entry's, so "npm testify" does not pass as "npm test"
and "pytest; rm -rf /" (one string, read as the words `pytest;`, `rm`, ...) is refused. The program is
looked up on a fixed PATH, never in the workspace. An argument that names a path out of the folder
(absolute, `~`, `..` or a link leading out; also as `--option=value`) is refused, so `pytest ../other` or
`pytest --basetemp=/tmp/x` cannot reach past it. The child gets a new session, so a timeout kills
everything it started.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from wenshu.workspace.errors import CommandNotAllowed, PathOutsideWorkspace
from wenshu.workspace.paths import Root

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
KEPT_ENV = ("LANG", "LC_ALL", "TZ")


@dataclass(frozen=True)
class CommandResult:
    argv: list[str]
    returncode: int | None  # None when it was stopped at the time limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool


def parse(command: str | list[str]) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def allowed(argv: list[str], allowlist: list[str]) -> bool:
    return any(argv[: len(p)] == p for p in (shlex.split(e) for e in allowlist) if p)


def confine_arguments(root: Root, argv: list[str]) -> None:
    """PathOutsideWorkspace for an argument (or an option's value) that names a path out of the root."""
    for arg in argv[1:]:
        for value in {arg, arg.split("=", 1)[-1]}:
            if value.startswith(("/", "~")):
                raise PathOutsideWorkspace(value, "an absolute path")
            if ".." in PurePosixPath(value).parts or os.path.lexists(root.path / value):
                root.resolve(value)  # a link that leads out counts as out


def scrubbed_env(path: str = SAFE_PATH, home: str | None = None) -> dict[str, str]:
    """Only PATH, HOME and the locale: no tokens, keys or proxies reach the command."""
    env = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    env.update(PATH=path, HOME=home or "/nonexistent", PYTHONDONTWRITEBYTECODE="1")
    return env


def run_command(root: Root, command: str | list[str], *, allowlist: list[str], timeout_s: float = 60.0,
                max_output: int = 100_000, path: str = SAFE_PATH, env: dict[str, str] | None = None,
                wrapper: tuple[str, ...] = ()) -> CommandResult:
    """`env` adds variables to the scrubbed environment (e.g. proxies that lead nowhere, for a test run);
    `wrapper` is put before the allowed command once it is checked (e.g. workspace.isolation's no-network
    prefix): the allowlist and the confinement apply to the command itself."""
    argv = parse(command)
    if not argv or not allowed(argv, allowlist):
        raise CommandNotAllowed(command if isinstance(command, str) else shlex.join(argv), allowlist)
    confine_arguments(root, argv)
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen([*wrapper, *argv], cwd=root.path, env=scrubbed_env(path, str(root.path)) | (env or {}),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except (FileNotFoundError, PermissionError) as err:
        return CommandResult(argv, 127, "", f"{argv[0]}: {err.strerror or err}", 0.0, False)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        code, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        code, timed_out = None, True
    return CommandResult(argv, code, out.decode("utf-8", "replace")[-max_output:],
                         err.decode("utf-8", "replace")[-max_output:], round(time.perf_counter() - t0, 2), timed_out)
