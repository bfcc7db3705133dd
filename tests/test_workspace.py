"""Workspace files and commands stay inside one folder: a corpus of escapes is refused, on a real
temp folder with real symlinks and real processes."""

from __future__ import annotations

import os
import time

import pytest

from wenshu.workspace.commands import allowed, run_command
from wenshu.workspace.errors import CommandNotAllowed, NotInWorkspace, NotText, PathOutsideWorkspace, WorkspaceMissing
from wenshu.workspace.files import list_files, read_text, write_text
from wenshu.workspace.paths import Root

ALLOW = ["pytest", "python3 -m pytest", "npm test", "ls", "sleep"]


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "secret.txt").write_text("top secret\n")
    os.symlink(tmp_path / "secret.txt", root / "leak.txt")  # a file link out
    os.symlink(tmp_path, root / "up")  # a folder link out
    os.symlink(root / "src", root / "src_link")  # a link that stays inside
    return Root(root)


@pytest.mark.parametrize("path", [
    "../secret.txt", "src/../../secret.txt", "/etc/passwd", "~/.ssh/id_rsa", "leak.txt", "up/secret.txt",
    "up", "src/\x00../../secret.txt", "./../project/../secret.txt",
])
def test_escapes_are_refused(ws, path):
    with pytest.raises(PathOutsideWorkspace) as err:
        read_text(ws, path)
    assert err.value.code == "path_outside_workspace"
    with pytest.raises(PathOutsideWorkspace):
        write_text(ws, path, "x")


def test_inside_paths_work_and_nothing_is_written_outside(ws, tmp_path):
    assert read_text(ws, "src/app.py").content == "print('hi')\n"
    assert read_text(ws, "src_link/app.py").path == "src/app.py"  # a link inside is followed
    assert read_text(ws, "src/../src/app.py").lines == 1
    written = write_text(ws, "reports/gmv/export.py", "a = 1\nb = 2\n")
    assert written.path == "reports/gmv/export.py" and written.lines == 2
    assert (ws.path / "reports" / "gmv" / "export.py").read_text() == "a = 1\nb = 2\n"
    assert (tmp_path / "secret.txt").read_text() == "top secret\n"
    with pytest.raises(NotInWorkspace):
        read_text(ws, "src/missing.py")
    (ws.path / "blob.bin").write_bytes(b"\x00\x01\xff")
    with pytest.raises(NotText):
        read_text(ws, "blob.bin")
    with pytest.raises(WorkspaceMissing):
        Root(tmp_path / "nowhere")


def test_listing_skips_caches_and_links_out(ws):
    names = {e.path for e in list_files(ws)}
    assert {"src", "src/app.py"} <= names
    assert not {n for n in names if n.startswith(("node_modules", ".git", "up", "leak"))}


@pytest.mark.parametrize("command", [
    "pytest; rm -rf /", "npm testify", "rm -rf /", "bash -c 'pytest'", "./pytest", "/usr/bin/pytest",
    "python3 -c 'import os'", "python3 -m pip install x", "", "env",
])
def test_commands_outside_the_allowlist_are_refused(ws, command):
    with pytest.raises(CommandNotAllowed) as err:
        run_command(ws, command, allowlist=ALLOW)
    assert err.value.code == "command_not_allowed" and "npm test" in err.value.en


def test_prefixes_match_whole_arguments():
    assert allowed(["npm", "test", "--", "-x"], ALLOW) and not allowed(["npm", "testify"], ALLOW)
    assert allowed(["python3", "-m", "pytest", "-q"], ALLOW) and not allowed(["python3", "-m", "pip"], ALLOW)


def test_a_command_runs_in_the_folder_with_a_scrubbed_environment(ws, monkeypatch):
    monkeypatch.setenv("WENSHU_API_KEY", "sk-should-not-leak")
    result = run_command(ws, ["ls", "-a"], allowlist=ALLOW)
    assert result.returncode == 0 and "src" in result.stdout.split() and not result.timed_out
    env = run_command(ws, "env", allowlist=["env"])
    assert "sk-should-not-leak" not in env.stdout and "PATH=/usr/local/bin:/usr/bin:/bin" in env.stdout.splitlines()
    assert f"HOME={ws.path}" in env.stdout.splitlines()
    missing = run_command(ws, "npm test", allowlist=ALLOW, path="/nonexistent")
    assert missing.returncode == 127 and "npm" in missing.stderr


def test_a_command_is_stopped_at_its_time_limit(ws):
    t0 = time.perf_counter()
    result = run_command(ws, "sleep 30", allowlist=ALLOW, timeout_s=0.5)
    assert result.timed_out and result.returncode is None and time.perf_counter() - t0 < 5
