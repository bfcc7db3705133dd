"""`wenshu desktop`: the web UI in a real native window (GTK + WebKit2GTK) under Xvfb, screenshotted.

The window tests run the real command in a subprocess with a throwaway WENSHU_HOME and the scripted fake
model, find its window with python-xlib, wait until the screenshot shows the web UI (the dark sidebar and
the blue New chat button), close it the way a window manager does (WM_DELETE_WINDOW) and check the server
it started is gone, or that a server it found running is left running. The error tests are fast: no
display, no pywebview, no GTK, an unreachable display, a port held by another program, an unknown --db.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app

WENSHU = str(Path(sys.executable).parent / "wenshu")
TITLE = "Wenshu (问数)"
SIDEBAR = (0x1F, 0x29, 0x37)  # --side in styles.css
ACCENT = (0x25, 0x63, 0xEB)  # --accent: the logo and the New chat button
runner = CliRunner()


def _missing_window_stack() -> str | None:
    if not shutil.which("Xvfb"):
        return "Xvfb is missing (Debian package xvfb; `make test` installs it)"
    probe = subprocess.run([sys.executable, "-c", "import webview, Xlib, gi; gi.require_version('WebKit2', '4.1')"],
                           capture_output=True, text=True)
    if probe.returncode:
        return ("pywebview with GTK/WebKit2GTK or python-xlib is missing (`make test` installs the desktop extra): "
                + probe.stderr.strip().splitlines()[-1])
    return None


@pytest.fixture(scope="module")
def xvfb():
    """A private X server (Xvfb picks a free display number); yields the DISPLAY value."""
    reason = _missing_window_stack()
    if reason:
        if os.environ.get("WENSHU_REQUIRE_SERVERS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    proc = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    number = proc.stdout.readline().strip()  # written once the server accepts clients
    assert number.isdigit(), f"Xvfb did not start (exit code {proc.poll()})"
    display = f":{number}"
    yield display
    proc.terminate()
    proc.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(home, tmp_path, **extra) -> dict:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": "SELECT 1"}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("WENSHU_") and k not in ("DISPLAY",
                                                                                           "WAYLAND_DISPLAY")}
    return env | {"WENSHU_HOME": str(home), "WENSHU_LLM_PROVIDER": "fake", "WENSHU_FAKE_SCRIPT": str(script),
                  "WENSHU_SEMANTIC_PATH": "0", "LANG": "en_US.UTF-8"} | extra


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json() == {"status": "ok"}
    except httpx.HTTPError:
        return False


class Screen:
    """The X server as a window manager and a screenshot tool see it (python-xlib)."""

    def __init__(self, display: str):
        from Xlib import display as xdisplay

        self.d = xdisplay.Display(display)
        self.name_atom = self.d.intern_atom("_NET_WM_NAME")
        self.utf8 = self.d.intern_atom("UTF8_STRING")

    def window(self, title: str):
        """The mapped top-level window with this title, or None."""
        from Xlib import X

        for win in self.d.screen().root.query_tree().children:
            prop = win.get_full_property(self.name_atom, self.utf8)
            name = prop.value.decode("utf-8", "replace") if prop else ""
            if name == title and win.get_attributes().map_state == X.IsViewable:
                return win
        return None

    def shot(self, win):
        from PIL import Image
        from Xlib import X

        geo = win.get_geometry()
        raw = win.get_image(0, 0, geo.width, geo.height, X.ZPixmap, 0xFFFFFFFF)
        return Image.frombytes("RGB", (geo.width, geo.height), raw.data, "raw", "BGRX")

    def close(self, win) -> None:
        """Ask the window to close, as the close button of a window manager does."""
        from Xlib import X
        from Xlib.protocol import event

        protocols, delete = self.d.intern_atom("WM_PROTOCOLS"), self.d.intern_atom("WM_DELETE_WINDOW")
        win.send_event(event.ClientMessage(window=win, client_type=protocols, data=(32, [delete, X.CurrentTime,
                                                                                       0, 0, 0])),
                       event_mask=X.NoEventMask)
        self.d.flush()

    def shut(self) -> None:
        self.d.close()


def _shows_the_web_ui(img) -> bool:
    """The dark sidebar fills the left strip and the blue New chat button is drawn: not a blank window."""
    side = img.crop((0, 0, 250, img.height))
    colors = {c: n for n, c in side.getcolors(side.width * side.height)}
    return colors.get(SIDEBAR, 0) > 0.5 * side.width * side.height and colors.get(ACCENT, 0) > 300


def _wait_for_ui(screen: Screen, proc, out: Path, timeout_s: float = 40.0):
    """Poll until the window is mapped and its screenshot shows the web UI; returns (window, image)."""
    deadline = time.monotonic() + timeout_s
    img = None
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"wenshu desktop exited with {proc.returncode}: {proc.stderr.read()}"
        win = screen.window(TITLE)
        if win is not None:
            img = screen.shot(win)
            if _shows_the_web_ui(img):
                img.save(out)
                return win, img
        time.sleep(0.3)
    if img is not None:
        img.save(out)
    pytest.fail(f"the window never showed the web UI (last screenshot: {out if img else 'no window'})")


def _desktop(home, tmp_path, display, *args):
    return subprocess.Popen([WENSHU, "desktop", *args], env=_env(home, tmp_path, DISPLAY=display),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _close_and_wait(screen: Screen, win, proc) -> str:
    screen.close(win)
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    out = proc.stdout.read()
    assert code == 0, out + proc.stderr.read()
    return out


def test_window_shows_the_web_ui_and_closing_it_stops_the_server_it_started(home, xvfb, tmp_path):
    port = _free_port()
    proc = _desktop(home, tmp_path, xvfb, "--port", str(port), "--db", "demo")
    screen = Screen(xvfb)
    try:
        line = proc.stdout.readline()
        assert f"running at http://127.0.0.1:{port}/" in line and "closing the window stops it" in line, line
        win, img = _wait_for_ui(screen, proc, tmp_path / "desktop.png")
        assert img.width >= 1000 and img.height >= 700  # the window's own size, not a sliver
        assert _healthy(port)
        out = _close_and_wait(screen, win, proc)
    finally:
        screen.shut()
        if proc.poll() is None:
            proc.kill()
    assert "the server it started has stopped" in out
    assert not _healthy(port)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0  # nothing listens there any more
    assert any(p.is_file() for p in (home / "desktop").rglob("*"))  # WebKit keeps the page's data in WENSHU_HOME


def test_window_on_a_running_server_opens_it_and_leaves_it_running(home, xvfb, tmp_path):
    port = _free_port()
    serve = subprocess.Popen([WENSHU, "serve", "--port", str(port)], env=_env(home, tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    screen = Screen(xvfb)
    try:
        assert f"http://127.0.0.1:{port}/" in serve.stdout.readline()
        proc = _desktop(home, tmp_path, xvfb, "--port", str(port))
        try:
            assert "already running" in proc.stdout.readline()
            win, _ = _wait_for_ui(screen, proc, tmp_path / "desktop-on-serve.png")
            out = _close_and_wait(screen, win, proc)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert "has stopped" not in out
        assert _healthy(port) and serve.poll() is None  # the server it found is left running
    finally:
        screen.shut()
        serve.terminate()
        serve.wait(timeout=20)


def _run(monkeypatch, *args, **env):
    for key in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return runner.invoke(app, ["desktop", *args])


def test_no_display_is_one_sentence_in_english_and_chinese(home, monkeypatch):
    port = _free_port()
    en = _run(monkeypatch, "--port", str(port), LANG="en_US.UTF-8")
    assert en.exit_code == 1 and "no_display" in en.output
    assert "DISPLAY and WAYLAND_DISPLAY are unset" in en.output and "wenshu serve" in en.output
    zh = _run(monkeypatch, "--port", str(port), WENSHU_LANG="zh_CN.UTF-8")
    assert zh.exit_code == 1 and "没有可用于打开桌面窗口的显示" in zh.output
    assert not _healthy(port)  # nothing was started


def test_without_pywebview_it_says_what_to_install(home, monkeypatch):
    monkeypatch.setitem(sys.modules, "webview", None)  # as if the desktop extra were not installed
    out = _run(monkeypatch, DISPLAY=":0", LANG="en_US.UTF-8")
    assert out.exit_code == 1 and "gui_backend_missing" in out.output
    assert "pywebview is not installed" in out.output and "pip install 'wenshu[desktop]'" in out.output


def test_without_gtk_it_names_pygobject_and_the_debian_packages(home, monkeypatch):
    pytest.importorskip("webview", reason="pywebview is not installed (the desktop extra)")
    monkeypatch.setitem(sys.modules, "gi", None)
    monkeypatch.setitem(sys.modules, "qtpy", None)
    out = _run(monkeypatch, DISPLAY=":0", WENSHU_LANG="zh_CN.UTF-8")
    assert out.exit_code == 1 and "gui_backend_missing" in out.output
    assert "未安装 PyGObject" in out.output and "gir1.2-webkit2-4.1" in out.output


def test_an_unreachable_display_an_unknown_db_and_a_port_held_by_another_program(home, xvfb, tmp_path):
    def desktop(display, *args):
        return subprocess.run([WENSHU, "desktop", *args], env=_env(home, tmp_path, DISPLAY=display),
                              capture_output=True, text=True, timeout=60)

    gone = desktop(":4242")
    assert gone.returncode == 1 and "no_display" in gone.stderr and "cannot open display :4242" in gone.stderr
    port = _free_port()
    nope = desktop(xvfb, "--db", "nope", "--port", str(port))
    assert nope.returncode == 1 and "unknown_datasource" in nope.stderr and "(known: demo)" in nope.stderr
    assert not _healthy(port)  # refused before the server starts
    with socket.socket() as other:  # a program that is not Wenshu on the port
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        held = desktop(xvfb, "--port", str(port))
    assert held.returncode == 1 and "port_in_use" in held.stderr and f"Port {port}" in held.stderr
