"""Render a Vega-Lite spec to a PNG on the server with vl-convert (offline: no network, no browser).

Chat robots cannot run JavaScript, so the chart travels as an image. vl-convert bundles Vega and
Vega-Lite; CJK labels need a CJK font, so the Noto CJK fonts are registered when they are installed
(Debian `fonts-noto-cjk`) and used as the chart font.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

FONT_DIRS = (Path("/usr/share/fonts/opentype/noto"), Path("/usr/share/fonts/truetype/noto"))
CJK_FONT = "Noto Sans CJK SC"
DEFAULT_WIDTH, DEFAULT_HEIGHT = 480, 280
MAX_PNG_BYTES = 2 * 1024 * 1024  # WeCom robots accept images up to 2 MB

_fonts_lock = threading.Lock()
_fonts_state: dict[str, bool] = {}


@dataclass(frozen=True)
class ChartImage:
    png: bytes

    @property
    def base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")

    @property
    def md5(self) -> str:
        return hashlib.md5(self.png).hexdigest()


def _register_fonts(vlc) -> bool:
    """Register the Noto CJK fonts once; True when a CJK font directory exists."""
    with _fonts_lock:
        if "cjk" not in _fonts_state:
            found = False
            for d in FONT_DIRS:
                if d.is_dir():
                    try:
                        vlc.register_font_directory(str(d))
                        found = True
                    except Exception as err:  # a broken font dir must not break answers
                        log.warning("cannot register fonts in %s: %s", d, err)
            _fonts_state["cjk"] = found
        return _fonts_state["cjk"]


def prepare_spec(spec: dict, *, cjk_font: bool, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT) -> dict:
    """A copy of the spec sized for a chat message, with a white background and the CJK font."""
    out = copy.deepcopy(spec)
    mark = out.get("mark")
    kind = mark.get("type") if isinstance(mark, dict) else mark
    if "width" not in out or out["width"] == "container":
        out["width"] = min(width, height) if kind == "arc" else width
    if "height" not in out or out["height"] == "container":
        out["height"] = height
    out.setdefault("background", "white")
    config = out.setdefault("config", {})
    if cjk_font:
        config.setdefault("font", CJK_FONT)
    return out


def render_png(spec: dict | None, *, scale: float = 2.0) -> ChartImage | None:
    """The chart as a PNG, or None when there is no spec or it cannot be rendered (logged, not raised)."""
    if not spec:
        return None
    try:
        import vl_convert as vlc
    except ImportError:  # pragma: no cover - vl-convert is a declared dependency
        log.warning("vl-convert is not installed; charts are sent without images")
        return None
    prepared = prepare_spec(spec, cjk_font=_register_fonts(vlc))
    try:
        png = vlc.vegalite_to_png(json.dumps(prepared, ensure_ascii=False), scale=scale)
        if len(png) > MAX_PNG_BYTES and scale > 1:
            png = vlc.vegalite_to_png(json.dumps(prepared, ensure_ascii=False), scale=1)
    except Exception as err:
        log.warning("chart rendering failed: %s", err)
        return None
    return ChartImage(png) if len(png) <= MAX_PNG_BYTES else None
