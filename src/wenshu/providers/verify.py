"""Verify the embedded model file before first use, remembering the result beside the file."""

from __future__ import annotations

import json
from pathlib import Path

from wenshu.errors import ModelMissing
from wenshu.providers.install import verify_model
from wenshu.settings import Settings


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def ensure_verified(settings: Settings) -> Path:
    """Return the model path once its SHA-256 is known good (hashed once per file version)."""
    path = settings.resolved_model_path
    if not path.exists():
        raise ModelMissing(
            f"The embedded model is not installed at {path}; run `wenshu model install`.",
            f"内置模型未安装（{path}），请运行 `wenshu model install`。",
        )
    stat = path.stat()
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    marker = _marker(path)
    try:
        if json.loads(marker.read_text()).get("stamp") == stamp:
            return path
    except (OSError, ValueError):
        pass
    digest = verify_model(settings)
    try:
        marker.write_text(json.dumps({"stamp": stamp, "sha256": digest}))
    except OSError:
        pass  # a read-only models dir: verify again next time
    return path
