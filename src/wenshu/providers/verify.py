"""Verify the embedded model file before first use, remembering the result beside the file.

The SHA-256 is computed once per file version (size and mtime) and kept in `<model>.verified.json`;
it also names the model in the prompt-prefix store, so a saved prefix never meets another model.
A file whose hash is not the expected one is refused (`ModelHashMismatch`), never loaded.
"""

from __future__ import annotations

import json
from pathlib import Path

from wenshu.errors import ModelHashMismatch, ModelMissing
from wenshu.providers.install import expected_sha256, verify_model
from wenshu.settings import Settings


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def ensure_verified(settings: Settings) -> tuple[Path, str]:
    """The model path and its SHA-256, once the hash is known good (hashed once per file version)."""
    path = settings.resolved_model_path
    if not path.exists():
        raise ModelMissing(
            f"The embedded model is not installed at {path}; run `wenshu model install`.",
            f"内置模型未安装（{path}），请运行 `wenshu model install`。",
        )
    stat = path.stat()
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    marker, expected = _marker(path), expected_sha256(settings)
    try:
        known = json.loads(marker.read_text())
        if known.get("stamp") == stamp and isinstance(known.get("sha256"), str):
            if expected and known["sha256"] != expected:
                raise ModelHashMismatch(str(path), known["sha256"], expected)
            return path, known["sha256"]
    except (OSError, ValueError, AttributeError):
        pass
    digest = verify_model(settings)
    try:
        marker.write_text(json.dumps({"stamp": stamp, "sha256": digest}))
    except OSError:
        pass  # a read-only models dir: verify again next time
    return path, digest
