"""`wenshu doctor`: the effective configuration, the model, its runtime, the datasources, what is missing.

`wenshu doctor --runtime` checks only the embedded runtime: one real decode in a child process, so a
runtime built for another CPU is reported (code and fix, in the user's language) instead of crashing
the first answer. `make run` and `make test` run it right after installing.
"""

from __future__ import annotations

import importlib.util

import typer
from rich.table import Table

from wenshu.cli.common import console, fail, guarded, settings, ui_lang


def _check_datasources(s) -> tuple[list[tuple[str, str, str]], list[str]]:
    from wenshu.bootstrap import DEMO, demo_path, open_store
    from wenshu.knowledge.introspect import load_catalog

    rows, fixes = [], []
    store = open_store(s)
    records = store.datasources.list()
    if not any(r.name == DEMO for r in records) and not demo_path(s).exists():
        fixes.append("The demo database is not built yet: it is built on the first `wenshu ask` or `wenshu chat`.")
    for r in records:
        try:
            n = len(load_catalog(r.name, r.url).tables)
            rows.append((r.name, r.dialect, f"[green]ok[/] ({n} tables)"))
        except Exception as exc:  # report, never crash
            rows.append((r.name, r.dialect, f"[red]unreachable[/]: {str(exc)[:80]}"))
            fixes.append(f"Datasource '{r.name}' is unreachable: check its URL or `wenshu db remove {r.name}`.")
    return rows, fixes


def _vector_index(s) -> str:
    """Which vector index recall uses: sqlite-vec in the app DB, or the exact numpy search and why."""
    from wenshu.bootstrap import open_store
    from wenshu.storage.vectors import open_vector_index

    store = open_store(s)
    try:
        return open_vector_index(store.engine, s.vector_index).describe()
    finally:
        store.close()


def _fix(exc: Exception) -> str:
    """An error as a line of the "Missing" list: its English sentence and its code."""
    return f"{getattr(exc, 'en', exc)} ({getattr(exc, 'code', 'error')})"


def _redis_line(s) -> tuple[str, str | None]:
    """The shared Redis: not configured (the embedded defaults), its version, or why it cannot be used (a fix)."""
    from wenshu.storage.redis_link import check_redis, redact

    if not s.redis_url:
        return "not set: cache, rate limits and session memory are this process's own (WENSHU_REDIS_URL)", None
    try:
        return f"[green]ok[/] (Redis {check_redis(s.redis_url)} at {redact(s.redis_url)})", None
    except Exception as exc:
        return "[red]unusable[/]", _fix(exc)


def _store_line(s) -> tuple[str, str | None]:
    """The app store (WENSHU_DATABASE_URL): where it is, or why it cannot be opened (a fix)."""
    from wenshu.bootstrap import open_store
    from wenshu.storage.store_health import shown

    try:
        store = open_store(s)
    except Exception as exc:
        return "[red]unusable[/]", _fix(exc)
    try:
        return f"[green]ok[/] ({shown(store.engine.url)})", None
    finally:
        store.close()


def _runtime_line(s) -> str:
    """Probe the embedded runtime; raises RuntimeCrashed / RuntimeUnsupportedCPU / ModelMissing."""
    from wenshu.providers.runtime import build_info, cpu_flags, probe
    from wenshu.providers.verify import ensure_verified

    path, _ = ensure_verified(s)
    result = probe(path, wanted=s.model_cpu_variant)
    info, flags = build_info(), cpu_flags() or set()
    cpu = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "?"
    return (f"[green]ok[/] ({result.kind or info.get('kind', 'unknown')} build, {result.variant} CPU backend on an "
            f"{cpu} CPU; test decode in {result.seconds:.1f} s)")


def check_runtime() -> None:
    """Only the runtime check (exit 1 with the error's code when it fails)."""
    lang = ui_lang()
    s = settings()
    try:
        console.print(f"Embedded runtime / 内置模型运行库: {_runtime_line(s)}")
    except Exception as exc:
        fail(exc, lang)


def doctor(runtime: bool = typer.Option(False, "--runtime", help="Only check the embedded runtime (a test decode).")) -> None:
    """Print the effective config, the model and its runtime, the datasources, and fixes for what is missing."""
    if runtime:
        check_runtime()
        return
    with guarded():
        from wenshu.providers.install import model_status
        from wenshu.providers.registry import choose_provider
        from wenshu.storage.redis_link import redact

        s = settings()
        fixes: list[str] = []
        cfg = Table("setting", "value", title="Configuration (env WENSHU_*, wenshu.toml in WENSHU_HOME)")
        for key, value in s.model_dump().items():
            if key == "llm_api_key" and value:
                value = "***"
            elif key in ("redis_url", "app_db_url") and value:
                value = redact(value)
            cfg.add_row(key, str(value))
        console.print(cfg)

        try:
            provider = choose_provider(s)
        except Exception as exc:
            provider = "none"
            fixes.append(str(exc))
        st = model_status(s)
        console.print(f"Model provider: [bold]{provider}[/]")
        if provider in ("embedded", "none"):
            state = "[green]installed[/]" if st.ok else "[red]missing or incomplete[/]"
            console.print(f"Embedded model: {state} at {st.path}")
            if importlib.util.find_spec("llama_cpp") is None:
                fixes.append("llama-cpp-python is not installed: `pip install 'wenshu[embedded]'`.")
            if not st.ok:
                fixes.append("Install the embedded model: `wenshu model install`.")
            elif importlib.util.find_spec("llama_cpp") is not None:
                try:
                    console.print(f"Embedded runtime / 内置模型运行库: {_runtime_line(s)}")
                except Exception as exc:
                    console.print("Embedded runtime / 内置模型运行库: [red]failed[/]")
                    fixes.append(_fix(exc))
        elif provider == "openai":
            console.print(f"Endpoint: {s.llm_base_url} (fast: {s.fast_model_name}, strong: {s.strong_model_name})")

        redis_state, redis_fix = _redis_line(s)
        console.print(f"Redis / 共享缓存与限流: {redis_state}")
        fixes += [redis_fix] if redis_fix else []
        local = s.model_copy(update={"redis_url": ""})  # the checks below need the store, not Redis (reported above)
        store_state, store_fix = _store_line(local)
        console.print(f"App store / 应用数据库: {store_state}", highlight=False)
        fixes += [store_fix] if store_fix else []
        if store_fix is None:  # the vector index and the datasources are read from the store
            console.print(f"Vector index / 向量索引: [bold]{_vector_index(local)}[/]")
            rows, ds_fixes = _check_datasources(local)
            fixes += ds_fixes
            table = Table("datasource", "dialect", "status", title="Datasources")
            for row in rows:
                table.add_row(*row)
            console.print(table)
        if fixes:
            console.print("[bold yellow]Missing:[/]")
            for fix in fixes:
                console.print(f"  - {fix}")
        else:
            console.print("[bold green]Everything is in place.[/]")
