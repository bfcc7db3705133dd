"""The native window of `wenshu desktop`: which GUI backend pywebview can drive here, and the window itself.

On Linux the backend is GTK 3 with WebKit2GTK through PyGObject (all LGPL, so they fit an Apache-2.0
product), installed by the `desktop` extra; Qt is used only when GTK is absent and the user installed
qtpy with PySide6 (LGPL) or PyQt (GPL) themselves. macOS and Windows use pywebview's own Cocoa and
Edge WebView2 backends.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path

from wenshu.cli.window_errors import GuiBackendMissing, NoDisplay

TITLE = "Wenshu (问数)"


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _gtk_problem() -> tuple[str, str] | None:
    """Why GTK + WebKit2GTK cannot be used (English, Chinese), or None when they can."""
    if not _importable("gi"):
        return "PyGObject is not installed", "未安装 PyGObject"
    import gi

    try:
        gi.require_version("Gtk", "3.0")
    except ValueError:
        return "the GTK 3 typelib is not installed (gir1.2-gtk-3.0)", "未安装 GTK 3 的 typelib（gir1.2-gtk-3.0）"
    for webkit, soup in (("4.1", "3.0"), ("4.0", "2.4")):  # the pairs pywebview's GTK backend loads
        try:
            gi.require_version("WebKit2", webkit)
            gi.require_version("Soup", soup)
            return None
        except ValueError:
            continue
    return ("the WebKit2GTK typelib is not installed (gir1.2-webkit2-4.1)",
            "未安装 WebKit2GTK 的 typelib（gir1.2-webkit2-4.1）")


def _open_gtk_display(env: Mapping[str, str]) -> None:
    from gi.repository import Gtk

    ok = Gtk.init_check(None)
    if not (ok[0] if isinstance(ok, tuple) else ok):
        raise NoDisplay(env.get("WAYLAND_DISPLAY") or env.get("DISPLAY"))


def gui_backend(env: Mapping[str, str]) -> str | None:
    """The pywebview GUI to use ("gtk", "qt", or None for the platform's own), checked before anything starts.

    Raises NoDisplay when there is no display to open a window on, GuiBackendMissing with what to install."""
    linux = sys.platform.startswith("linux")
    if linux and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        raise NoDisplay()
    if not _importable("webview"):
        raise GuiBackendMissing("pywebview is not installed", "未安装 pywebview")
    if not linux:
        return None  # Cocoa / WebView2: pywebview installs their bindings with itself
    problem = _gtk_problem()
    if problem is None:
        _open_gtk_display(env)
        return "gtk"
    if _importable("qtpy"):
        return "qt"
    raise GuiBackendMissing(*problem)


def open_window(url: str, gui: str | None, storage: Path) -> None:
    """Show `url` in a native window and return when the user closes it.

    `storage` keeps the page's localStorage (language, token, assistant switch) between runs."""
    import webview

    storage.mkdir(parents=True, exist_ok=True)
    webview.create_window(TITLE, url, width=1280, height=840, min_size=(400, 480))
    webview.start(gui=gui, private_mode=False, storage_path=str(storage))
