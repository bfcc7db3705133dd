"""Build and install a portable llama-cpp-python (the embedded model's runtime) into the running venv.

Why: llama.cpp defaults to `-march=native`, so a wheel is tied to the CPU it was built on; on CPUs with
AMX (Sapphire Rapids and later) such a build segfaults in `ggml_backend_amx_mul_mat` on the first
decode, and pip's wheel cache hands the same wheel to every later install. This script instead:

1. builds llama-cpp-python from its sdist with explicit x86-64 flags (AVX2 level: SSE4.2, AVX, F16C,
   FMA, AVX2, BMI2; no AVX-512, no AMX), with pip's cache off;
2. builds a second CPU backend (`libggml-cpu.so`) from the same sources with AVX-512 (F/CD/VL/DQ/BW,
   VBMI, VNNI; still no AMX) and ships it in the wheel under `llama_cpp/lib/avx512/`, chosen at run
   time only on CPUs that have those features (`wenshu.providers.runtime`);
3. keeps the finished wheel in its own cache, keyed by the version, the flags and the compiler, so a
   wheel built with other flags is never reused.

`--native` opts into a build for this machine only (`-march=native`, AMX still off); it gets its own
cache key, including this CPU's feature flags. See docs/runtime.md.

Usage: python scripts/build_llama.py [--native] [--force]   (run by `make install`)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

RECIPE = 1  # bump when the steps below change in a way that changes the wheel
ROOT = Path(__file__).resolve().parent.parent
COMMON = [
    "-DLLAVA_BUILD=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=OFF",
    "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_CURL=OFF",
]
NO_AMX = ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
# The portable baseline: every x86-64 CPU since Haswell (2013) / Zen 1 has these.
BASE = ["-DGGML_NATIVE=OFF", "-DGGML_SSE42=ON", "-DGGML_AVX=ON", "-DGGML_F16C=ON", "-DGGML_FMA=ON",
        "-DGGML_AVX2=ON", "-DGGML_BMI2=ON", "-DGGML_AVX_VNNI=OFF", "-DGGML_AVX512=OFF",
        "-DGGML_AVX512_VBMI=OFF", "-DGGML_AVX512_VNNI=OFF", "-DGGML_AVX512_BF16=OFF", *NO_AMX]
# The AVX-512 CPU backend (Ice Lake / Zen 4 level), loaded only where the CPU has every feature below.
AVX512 = [*[f for f in BASE if "AVX512" not in f],
          "-DGGML_AVX512=ON", "-DGGML_AVX512_VBMI=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=OFF"]
AVX512_CPU_FLAGS = ["avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw", "avx512vbmi", "avx512_vnni"]
BASE_CPU_FLAGS = ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"]
NATIVE = ["-DGGML_NATIVE=ON", *NO_AMX]
NATIVE_CFLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"  # explicit -mno-* wins over -march=native in gcc


def log(msg: str) -> None:
    print(f"[build-llama] {msg}", flush=True)


def pinned_version() -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["embedded"]
    for dep in deps:
        if m := re.fullmatch(r"llama-cpp-python==([\w.]+)", dep.replace(" ", "")):
            return m.group(1)
    raise SystemExit("pyproject.toml pins no llama-cpp-python==VERSION in the embedded extra")


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def compiler_id() -> str:
    cc = os.environ.get("CC", "cc")
    try:
        return subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return cc


def recipe(native: bool) -> dict:
    version = pinned_version()
    r = {"recipe": RECIPE, "package": "llama-cpp-python", "version": version, "machine": platform.machine(),
         "python": f"{sys.version_info.major}.{sys.version_info.minor}", "compiler": compiler_id()}
    if native:
        r |= {"kind": "native", "cmake_args": COMMON + NATIVE, "cflags": NATIVE_CFLAGS,
              "built_for_cpu": sorted(cpu_flags()), "variants": {}}
    else:
        r |= {"kind": "portable", "cmake_args": COMMON + BASE, "requires_cpu": BASE_CPU_FLAGS,
              "variants": {"avx512": {"cmake_args": COMMON + AVX512, "requires_cpu": AVX512_CPU_FLAGS}}}
    r["key"] = hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()[:16]
    return r


def cache_dir(r: dict) -> Path:
    base = os.environ.get("WENSHU_BUILD_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wenshu"
    return Path(base) / "llama-cpp-python" / f"{r['version']}-{r['kind']}-{r['key']}"


def installed_key() -> str | None:
    """The recipe key of the llama-cpp-python in this venv, if this script built it."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("llama_cpp")
        if spec is None or not spec.submodule_search_locations:
            return None
        info = Path(list(spec.submodule_search_locations)[0]) / "lib" / "wenshu-build.json"
        return json.loads(info.read_text()).get("key")
    except (OSError, ValueError):
        return None


def run(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> None:
    log("$ " + " ".join(str(c) for c in cmd))
    subprocess.run(cmd, check=True, env=env, cwd=cwd)


def pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]


def clean_env(cmake_args: list[str], cflags: str = "") -> dict:
    """The build's environment: our flags only, whatever CMAKE_ARGS/CFLAGS the shell had; the venv's
    cmake and ninja first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "CFLAGS", "CXXFLAGS", "FORCE_CMAKE")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["CMAKE_ARGS"] = " ".join(cmake_args)
    env["CMAKE_BUILD_PARALLEL_LEVEL"] = env.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    if cflags:
        env["CFLAGS"] = env["CXXFLAGS"] = cflags
    return env


def build_variant(sdist_dir: Path, work: Path, cmake_args: list[str]) -> Path:
    """Build only the CPU backend (`libggml-cpu.so`) of the vendored llama.cpp with other flags."""
    src, build = sdist_dir / "vendor" / "llama.cpp", work / "variant-build"
    run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         "-DBUILD_SHARED_LIBS=ON", "-DLLAMA_BUILD_COMMON=OFF", *cmake_args], env=clean_env([]))
    run(["cmake", "--build", str(build), "--target", "ggml-cpu"], env=clean_env([]))
    found = [p for p in build.rglob("libggml-cpu.so*") if p.is_file() and not p.is_symlink()]
    if not found:
        raise SystemExit("the variant build produced no libggml-cpu.so")
    return found[0]


def repack(wheel: Path, r: dict, variants: dict[str, Path], work: Path) -> Path:
    """Repack `wheel` with the recipe and, per variant, `llama_cpp/lib/<name>/`: the wheel's libraries
    with that variant's CPU backend (their RUNPATH is $ORIGIN, so each folder loads as a set)."""
    unpacked, out = work / "unpacked", work / "repacked"
    run([sys.executable, "-m", "wheel", "unpack", "-d", str(unpacked), str(wheel)])
    root = next(unpacked.iterdir())
    libdir = root / "llama_cpp" / "lib"
    for name, lib in variants.items():
        (libdir / name).mkdir()
        for f in libdir.iterdir():
            if f.is_file() and ".so" in f.name:
                shutil.copy2(lib if f.name.startswith("libggml-cpu.so") else f, libdir / name / f.name)
        if not any(f.name.startswith("libggml-cpu.so") for f in (libdir / name).iterdir()):
            raise SystemExit("the wheel has no libggml-cpu.so to replace")
    (libdir / "wenshu-build.json").write_text(json.dumps(r, indent=1, sort_keys=True))
    out.mkdir()
    run([sys.executable, "-m", "wheel", "pack", "-d", str(out), str(root)])
    return next(out.glob("*.whl"))


def build(r: dict, target: Path) -> Path:
    run(pip("install", "--quiet", "wheel", "cmake", "ninja"))
    with tempfile.TemporaryDirectory(prefix="wenshu-llama-") as tmp:
        work = Path(tmp)
        log(f"downloading the llama-cpp-python {r['version']} sources")
        run(pip("download", "--no-deps", "--no-binary", ":all:", "--no-cache-dir", "-d", str(work / "sdist"),
                f"llama-cpp-python=={r['version']}"))
        sdist = next((work / "sdist").glob("*.tar.gz"))
        log(f"building the {r['kind']} wheel (several minutes on 2 cores); flags: {' '.join(r['cmake_args'])}")
        run(pip("wheel", "--no-cache-dir", "--no-deps", "-w", str(work / "wheel"), str(sdist)),
            env=clean_env(r["cmake_args"], r.get("cflags", "")))
        wheel = next((work / "wheel").glob("*.whl"))
        libs = {}
        if r["variants"]:
            run(["tar", "xzf", str(sdist), "-C", str(work)])
            sdist_dir = next(p for p in work.iterdir() if p.is_dir() and p.name.startswith("llama_cpp_python"))
            for name, v in r["variants"].items():
                log(f"building the {name} CPU backend; flags: {' '.join(v['cmake_args'])}")
                libs[name] = build_variant(sdist_dir, work / name, v["cmake_args"])
        wheel = repack(wheel, r, libs, work)
        staging = target.with_name(target.name + f".tmp{os.getpid()}")
        staging.mkdir(parents=True, exist_ok=True)
        shutil.copy2(wheel, staging / wheel.name)
        (staging / "recipe.json").write_text(json.dumps(r, indent=1, sort_keys=True))
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return next(target.glob("*.whl"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--native", action="store_true", help="build for this CPU only (-march=native, AMX off)")
    ap.add_argument("--force", action="store_true", help="rebuild even when a cached wheel exists")
    args = ap.parse_args()
    native = args.native or os.environ.get("WENSHU_LLAMA_BUILD", "portable") == "native"
    if platform.machine() not in ("x86_64", "AMD64") and not native:
        log(f"{platform.machine()}: no x86 flags apply; building for this CPU")
        native = True
    r = recipe(native)
    if installed_key() == r["key"] and not args.force:
        log(f"llama-cpp-python {r['version']} ({r['kind']}, {r['key']}) is already installed")
        return
    target = cache_dir(r)
    wheels = list(target.glob("*.whl")) if target.is_dir() else []
    if wheels and not args.force:
        log(f"using the cached wheel {wheels[0]}")
        wheel = wheels[0]
    else:
        wheel = build(r, target)
    zipfile.ZipFile(wheel).testzip()
    run(pip("install", "--no-deps", "--force-reinstall", "--no-cache-dir", str(wheel)))
    # its own dependencies (numpy, jinja2, diskcache): the wheel above already satisfies the pin
    run(pip("install", "--quiet", "--no-cache-dir", f"llama-cpp-python=={r['version']}"))
    log(f"installed llama-cpp-python {r['version']} ({r['kind']}, key {r['key']})")


if __name__ == "__main__":
    main()
