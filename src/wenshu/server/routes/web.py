"""The web UI: `/` serves static/index.html and `/static/...` its assets, straight from the package."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

NOT_BUILT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wenshu (问数)</title></head>
<body><h1>Wenshu (问数)</h1>
<p>The web UI is not built into this package yet; the API is running: see <a href="/docs">/docs</a>.</p>
<p>网页界面尚未包含在此安装包中；API 已在运行，请查看 <a href="/docs">/docs</a>。</p></body></html>"""

router = APIRouter(include_in_schema=False)


@router.get("/", operation_id="web_index")
def index():
    page = STATIC_DIR / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})
    return HTMLResponse(NOT_BUILT)


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
