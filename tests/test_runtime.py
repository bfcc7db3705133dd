"""The embedded runtime: CPU backend choice, the crash-safe decode check, `wenshu doctor --runtime`.

A "library that crashes on decode" is a stand-in `llama_cpp` package put first on the child's
PYTHONPATH: its decode kills its own process with SIGSEGV, as the AMX kernels of a `-march=native`
build do on Sapphire Rapids. The check runs in a child process, so only that child dies.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.errors import ModelHashMismatch, RuntimeCrashed, RuntimeUnsupportedCPU
from wenshu.providers.runtime import choose, cpu_flags, ensure_probed, probe
from wenshu.settings import Settings

AVX2 = {"sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"}
AVX512 = AVX2 | {"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw", "avx512vbmi", "avx512_vnni"}

CRASHING = """
import os, signal

class Llama:
    def __init__(self, model_path, **kw):
        self.path = model_path

    def tokenize(self, text, **kw):
        return [1, 2, 3]

    def eval(self, tokens):
        os.kill(os.getpid(), signal.SIGSEGV)
"""

FAILING = CRASHING.replace("os.kill(os.getpid(), signal.SIGSEGV)", "raise RuntimeError('decode returned -3')")

WORKING = """
class Llama:
    def __init__(self, model_path, **kw):
        pass

    def tokenize(self, text, **kw):
        return [1, 2]

    def eval(self, tokens):
        pass

    def sample(self, **kw):
        return 7

    def detokenize(self, tokens):
        return b" 2"

    def close(self):
        pass
"""


def fake_library(root: Path, source: str) -> Path:
    pkg = root / "fake-lib" / "llama_cpp"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(source))
    return pkg.parent


@pytest.fixture
def model_file(tmp_path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF not really a model")
    return path


def info(tmp_path: Path) -> dict:
    (tmp_path / "avx512").mkdir(exist_ok=True)
    return {"kind": "portable", "libdir": str(tmp_path), "requires_cpu": sorted(AVX2),
            "variants": {"avx512": {"requires_cpu": sorted(AVX512 - AVX2)}}}


def test_the_avx512_backend_is_chosen_only_where_the_cpu_has_every_feature(tmp_path):
    assert choose(info(tmp_path), AVX512).variant == "avx512"
    assert choose(info(tmp_path), AVX512).lib_path == str(tmp_path / "avx512")
    assert choose(info(tmp_path), AVX512 - {"avx512_vnni"}).variant == "base"
    assert choose(info(tmp_path), AVX2).variant == "base"
    assert choose(info(tmp_path), AVX512, wanted="base").variant == "base"  # the user's choice wins


def test_a_cpu_without_avx2_gets_a_message_not_a_crash(tmp_path):
    with pytest.raises(RuntimeUnsupportedCPU) as err:
        choose(info(tmp_path), AVX2 - {"avx2", "fma"})
    assert err.value.code == "runtime_cpu_unsupported"
    assert err.value.missing == ["avx2", "fma"]
    assert "avx2, fma" in err.value.en and "LLAMA_BUILD=native" in err.value.en
    assert "缺少" in err.value.zh and "avx2, fma" in err.value.zh


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2\nbugs\t\t: none\n")
    flags = cpu_flags(cpuinfo)
    assert flags is None or flags == {"fpu", "sse4_2", "avx", "avx2"}  # None only off x86-64


def test_a_library_that_crashes_on_decode_is_reported_with_its_code(tmp_path, model_file, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path, CRASHING)))
    with pytest.raises(RuntimeCrashed) as err:
        probe(model_file, timeout_s=60)
    assert err.value.code == "runtime_crashed"
    assert "SIGSEGV" in err.value.en and "make runtime" in err.value.en
    assert "崩溃" in err.value.zh and "make runtime" in err.value.zh


def test_a_library_that_fails_on_decode_is_reported_too(tmp_path, model_file, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path, FAILING)))
    with pytest.raises(RuntimeCrashed) as err:
        probe(model_file, timeout_s=60)
    assert "decode returned -3" in err.value.en


@pytest.mark.parametrize("lang, words", [("en_US.UTF-8", "crashed on a test decode"), ("zh_CN.UTF-8", "试解码时崩溃")])
def test_doctor_runtime_turns_a_crash_into_the_error_code(home, tmp_path, model_file, monkeypatch, lang, words):
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path, CRASHING)))
    monkeypatch.setenv("WENSHU_MODEL_PATH", str(model_file))
    monkeypatch.setenv("LANG", lang)
    out = CliRunner().invoke(app, ["doctor", "--runtime"])
    assert out.exit_code == 1
    assert "runtime_crashed" in out.output and words in " ".join(out.output.split())


def test_doctor_runtime_passes_on_a_library_that_decodes(home, tmp_path, model_file, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path, WORKING)))
    monkeypatch.setenv("WENSHU_MODEL_PATH", str(model_file))
    out = CliRunner().invoke(app, ["doctor", "--runtime"])
    assert out.exit_code == 0, out.output
    assert "ok" in out.output and "test decode" in out.output


def test_the_probe_runs_once_per_runtime_and_cpu(tmp_path, model_file, monkeypatch):
    record = tmp_path / "probe.json"
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path / "ok", WORKING)))
    ensure_probed(record, model_file, "abc")
    assert json.loads(record.read_text())["ok"]
    monkeypatch.setenv("PYTHONPATH", str(fake_library(tmp_path / "bad", CRASHING)))
    ensure_probed(record, model_file, "abc")  # remembered: no second child process
    with pytest.raises(RuntimeCrashed):
        ensure_probed(record, model_file, "another model")  # a new model is probed again


def test_a_model_file_with_the_wrong_hash_is_refused(home, model_file, monkeypatch):
    from wenshu.providers.verify import ensure_verified

    monkeypatch.setenv("WENSHU_MODEL_PATH", str(model_file))
    path, digest = ensure_verified(Settings())  # no expected hash: accepted, hash remembered
    assert path == model_file and len(digest) == 64
    monkeypatch.setenv("WENSHU_MODEL_SHA256", "ab" * 32)
    with pytest.raises(ModelHashMismatch) as err:
        ensure_verified(Settings())  # the remembered hash is checked against the new expectation
    assert err.value.code == "model_hash_mismatch" and "not the expected model" in err.value.en
    assert "拒绝加载" in err.value.zh


def test_the_real_runtime_decodes_in_a_child_process(real_model_path):
    result = probe(real_model_path, timeout_s=300)
    assert result.ok and result.variant in ("base", "avx512", "override") and result.text


def load_build_script():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "build_llama.py"
    spec = importlib.util.spec_from_file_location("build_llama", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_flags_are_explicit_and_each_recipe_has_its_own_cache_key():
    build = load_build_script()
    portable, native = build.recipe(native=False), build.recipe(native=True)
    flags = " ".join(portable["cmake_args"])
    assert "-DGGML_NATIVE=OFF" in flags and "-DGGML_AVX2=ON" in flags and "-DGGML_AVX512=OFF" in flags
    assert all(f"-DGGML_AMX_{x}=OFF" in flags for x in ("TILE", "INT8", "BF16"))
    variant = " ".join(portable["variants"]["avx512"]["cmake_args"])
    assert "-DGGML_AVX512=ON" in variant and "-DGGML_AMX_INT8=OFF" in variant and "-DGGML_NATIVE=OFF" in variant
    assert "-mno-amx-tile" in native["cflags"]  # a native build keeps AMX out too
    assert portable["key"] != native["key"]
    assert build.cache_dir(portable) != build.cache_dir(native)


def _disassembly(lib: Path) -> str:
    import subprocess

    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)], capture_output=True, text=True).stdout


def test_the_installed_runtime_has_no_amx_and_its_baseline_no_avx512():
    """The built libraries themselves: no AMX instruction anywhere; AVX-512 only in the avx512 backend."""
    import os
    import shutil

    from wenshu.providers.runtime import build_info

    info = build_info()
    if info.get("kind") != "portable" or not shutil.which("objdump"):
        if os.environ.get("WENSHU_REQUIRE_MODEL"):
            pytest.fail(f"the runtime was not built by scripts/build_llama.py (build info: {info})")
        pytest.skip("llama-cpp-python was not built by scripts/build_llama.py here")
    libdir = Path(info["libdir"])
    base, fast = _disassembly(libdir / "libggml-cpu.so"), _disassembly(libdir / "avx512" / "libggml-cpu.so")
    amx = ("ldtilecfg", "tileloadd", "tdpbssd", "tdpbf16ps")
    assert not any(op in text for op in amx for text in (base, fast))
    assert "zmm" not in base and "ymm" in base  # AVX2 baseline
    assert "zmm" in fast and "vpdpbusd" in fast  # AVX-512 with VNNI
