"""The embedded runtime (llama-cpp-python): which CPU backend to load, and a crash-safe decode check.

`scripts/build_llama.py` builds a portable wheel: the default libraries need AVX2 (no AVX-512, no AMX)
and `llama_cpp/lib/<variant>/` holds the same libraries with a faster CPU backend; the recipe it was
built with is in `llama_cpp/lib/wenshu-build.json`. `select_library` runs before `llama_cpp` is first
imported: it refuses a CPU that lacks the baseline features (a message, not a SIGILL) and points
llama-cpp-python at the best variant this CPU supports (`LLAMA_CPP_LIB_PATH`).

`probe` loads the model and decodes a few tokens in a child process (`python -m
wenshu.providers.probe`), so a runtime that crashes (a segfault in a CPU kernel, an illegal
instruction) becomes `RuntimeCrashed` with the fix instead of killing the caller.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from wenshu.errors import RuntimeCrashed, RuntimeUnsupportedCPU

CPUINFO = Path("/proc/cpuinfo")
REBUILD = "make runtime"  # the fix for a broken runtime: rebuild the portable wheel


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str] | None:
    """The CPU's feature flags (Linux names), or None where they cannot be read (not Linux, not x86)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        m = re.search(r"^flags\s*:\s*(.*)$", cpuinfo.read_text(errors="replace"), re.M)
    except OSError:
        return None
    return set(m.group(1).split()) if m else None


def build_info() -> dict:
    """The recipe the installed llama-cpp-python was built with (empty when built some other way)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return {}
    libdir = Path(list(spec.submodule_search_locations)[0]) / "lib"
    try:
        info = json.loads((libdir / "wenshu-build.json").read_text())
    except (OSError, ValueError):
        return {}
    return {**info, "libdir": str(libdir)}


@dataclass
class RuntimeChoice:
    kind: str  # portable | native | unknown (built without scripts/build_llama.py)
    variant: str  # the CPU backend loaded: base, avx512, ... or "override" (LLAMA_CPP_LIB_PATH set)
    lib_path: str | None


def choose(info: dict, flags: set[str] | None, wanted: str = "auto") -> RuntimeChoice:
    """Pure: the library folder for this CPU. Raises RuntimeUnsupportedCPU when the baseline is missing."""
    kind = info.get("kind", "unknown")
    if flags is not None:
        missing = [f for f in info.get("requires_cpu", []) if f not in flags]
        if missing:
            raise RuntimeUnsupportedCPU(missing)
    if wanted == "base" or not info.get("libdir"):
        return RuntimeChoice(kind, "base", None)
    for name, variant in (info.get("variants") or {}).items():
        if wanted not in ("auto", name) or flags is None:
            continue
        folder = Path(info["libdir"]) / name
        if all(f in flags for f in variant.get("requires_cpu", [])) and folder.is_dir():
            return RuntimeChoice(kind, name, str(folder))
    return RuntimeChoice(kind, "base", None)


_CHOSEN: RuntimeChoice | None = None


def select_library(wanted: str = "auto", cpuinfo: Path = CPUINFO) -> RuntimeChoice:
    """Point llama-cpp-python at the right libraries; call before the first `import llama_cpp`.

    A user's own `LLAMA_CPP_LIB_PATH` wins. Idempotent: the first choice of a process stays.
    """
    global _CHOSEN
    if _CHOSEN is not None:
        return _CHOSEN
    if os.environ.get("LLAMA_CPP_LIB_PATH"):
        _CHOSEN = RuntimeChoice("override", "override", os.environ["LLAMA_CPP_LIB_PATH"])
        return _CHOSEN
    choice = choose(build_info(), cpu_flags(cpuinfo), wanted)
    if choice.lib_path and "llama_cpp" not in sys.modules:
        os.environ["LLAMA_CPP_LIB_PATH"] = choice.lib_path
    _CHOSEN = choice
    return choice


@dataclass
class ProbeResult:
    ok: bool
    variant: str = ""
    kind: str = ""
    seconds: float = 0.0
    text: str = ""


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def probe(model_path: Path, *, wanted: str = "auto", timeout_s: float = 300.0,
          env: dict[str, str] | None = None) -> ProbeResult:
    """Load the model and decode a few tokens in a child process; a crash raises RuntimeCrashed."""
    cmd = [sys.executable, "-m", "wenshu.providers.probe", str(model_path), "--variant", wanted]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeCrashed(f"no answer after {timeout_s:.0f} s", REBUILD) from exc
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode < 0:
        raise RuntimeCrashed(_signal_name(done.returncode), REBUILD)
    try:
        out = json.loads(last)
    except ValueError:
        out = {}
    if done.returncode != 0 or not out.get("ok"):
        if out.get("code") == RuntimeUnsupportedCPU.code:
            raise RuntimeUnsupportedCPU(out.get("missing") or [])
        detail = out.get("error") or (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise RuntimeCrashed(detail[:300], REBUILD)
    return ProbeResult(True, out.get("variant", ""), out.get("kind", ""), out.get("seconds", 0.0), out.get("text", ""))


def ensure_probed(record: Path, model_path: Path, model_hash: str, wanted: str = "auto") -> None:
    """Probe once per (runtime build, CPU, model, variant), remembered in `record`: a venv copied to another
    machine, or a runtime rebuilt, is tested in a child process before the model loads in this one."""
    import hashlib

    info = build_info()
    stamp = hashlib.sha256(json.dumps([info.get("key"), info.get("libdir"), sorted(cpu_flags() or []), model_hash,
                                       wanted]).encode()).hexdigest()
    try:
        if json.loads(record.read_text()).get("ok") == stamp:
            return
    except (OSError, ValueError, AttributeError):
        pass
    probe(model_path, wanted=wanted)
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"ok": stamp}))
    except OSError:
        pass
