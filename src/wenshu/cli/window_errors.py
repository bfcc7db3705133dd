"""The desktop window's errors (`wenshu desktop`): no display, no GUI backend, a port held by another
program. The project's one error shape (wenshu.errors.WenshuError): a code, an English and a Chinese
sentence."""

from __future__ import annotations

from wenshu.errors import WenshuError


class NoDisplay(WenshuError):
    """`wenshu desktop` with no display to open a window on (DISPLAY / WAYLAND_DISPLAY unset, or unreachable)."""

    code = "no_display"

    def __init__(self, detail: str | None = None):
        en_why = f"cannot open display {detail}" if detail else "DISPLAY and WAYLAND_DISPLAY are unset"
        zh_why = f"无法打开显示 {detail}" if detail else "DISPLAY 和 WAYLAND_DISPLAY 均未设置"
        super().__init__(
            f"No display to open the desktop window on ({en_why}). Run `wenshu desktop` in a graphical session, "
            "or run `wenshu serve` and open http://127.0.0.1:8765/ in a browser.",
            f"没有可用于打开桌面窗口的显示（{zh_why}）。请在图形桌面会话中运行 `wenshu desktop`，"
            "或运行 `wenshu serve` 后在浏览器中打开 http://127.0.0.1:8765/。",
        )


class GuiBackendMissing(WenshuError):
    """`wenshu desktop` without pywebview or a GUI toolkit it can drive (GTK + WebKit2GTK on Linux)."""

    code = "gui_backend_missing"

    def __init__(self, en_detail: str, zh_detail: str):
        apt = "apt-get install gir1.2-webkit2-4.1 libgirepository1.0-dev libcairo2-dev pkg-config"
        super().__init__(
            f"The desktop window needs a GUI backend: {en_detail}. Install it with `pip install 'wenshu[desktop]'` "
            f"(on Debian/Ubuntu first `{apt}`), or run `wenshu serve` and use a browser.",
            f"桌面窗口需要图形界面组件：{zh_detail}。请用 `pip install 'wenshu[desktop]'` 安装（Debian/Ubuntu 上先运行 "
            f"`{apt}`），或运行 `wenshu serve` 后使用浏览器。",
        )


class PortInUse(WenshuError):
    """`wenshu desktop` found another program (not Wenshu) listening on its port."""

    code = "port_in_use"

    def __init__(self, port: int):
        super().__init__(
            f"Port {port} is used by another program that is not a Wenshu server; choose another with --port.",
            f"端口 {port} 已被另一个程序（不是问数服务）占用，请用 --port 换一个端口。",
        )
