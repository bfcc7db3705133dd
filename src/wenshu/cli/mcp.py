"""`wenshu mcp add|list|remove|tools|serve`: the MCP servers the assistant may use (WENSHU_HOME/mcp.json),
and Wenshu itself as an MCP server for other clients (docs/mcp.md)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from wenshu.cli.common import console, err_console, guarded, settings

app = typer.Typer(help="MCP: servers whose tools the assistant may use, and `serve` to be one.", no_args_is_help=True)


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    out = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{what} must be KEY=VALUE, not {item!r}")
        out[key.strip()] = value
    return out


@app.command("add")
def add(
    name: str = typer.Argument(..., help="A short name; its tools are offered as NAME__TOOL."),
    command: list[str] = typer.Argument(None, metavar="[-- COMMAND ARGS...]", help="A stdio server: the command."),
    url: str = typer.Option(None, "--url", help="A Streamable HTTP server's URL instead of a command."),
    env: list[str] = typer.Option(None, "--env", "-e", help="KEY=VALUE for the server's environment (repeatable)."),
    header: list[str] = typer.Option(None, "--header", "-H", help="KEY=VALUE HTTP header, e.g. a token (repeatable)."),
    replace: bool = typer.Option(False, "--replace", help="Replace a server of that name."),
) -> None:
    """Add a server: `wenshu mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/data`,
    or `wenshu mcp add tickets --url http://127.0.0.1:9000/mcp`."""
    from wenshu.mcp.config import ServerConfig, add_server

    if command and (url or header):
        raise typer.BadParameter("give a command or --url (with --header), not both")
    if env and not command:
        raise typer.BadParameter("--env is for a command's environment; an HTTP server takes --header")
    if command:
        config = ServerConfig(name, command=command[0], args=list(command[1:]), env=_pairs(env, "--env"))
    else:
        config = ServerConfig(name, url=url, headers=_pairs(header, "--header"))
    with guarded():
        added = add_server(settings().mcp_config_path, config, replace=replace)
        console.print(f"Added MCP server [bold]{added.name}[/] ({added.transport}: {added.target()}); "
                      f"check it with `wenshu mcp tools {added.name}`.", highlight=False)


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")) -> None:
    """The configured servers (environment values and headers are not shown)."""
    from wenshu.mcp.config import load_servers

    with guarded(as_json=as_json):
        servers = load_servers(settings().mcp_config_path).values()
        if as_json:
            print(json.dumps([{"name": s.name, "transport": s.transport, "target": s.target(), "env": sorted(s.env),
                               "headers": sorted(s.headers), "disabled": s.disabled, "error": s.error}
                              for s in servers], ensure_ascii=False))  # fmt: skip
            return
        table = Table("name", "transport", "command or URL", "status")
        for s in servers:
            status = f"[red]{s.error}[/]" if s.error else "disabled" if s.disabled else "enabled"
            table.add_row(s.name, s.transport, s.target(), status)
        console.print(table)
        if not servers:
            console.print(f"No MCP servers yet ({settings().mcp_config_path}); add one with `wenshu mcp add`.")


@app.command("remove")
def remove(name: str) -> None:
    """Remove a server from the configuration."""
    from wenshu.mcp.config import remove_server

    with guarded():
        remove_server(settings().mcp_config_path, name)
        console.print(f"Removed MCP server {name}.")


@app.command("tools")
def tools(
    name: str = typer.Argument(None, help="Only this server (default: all)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Start the servers and list their tools as the assistant sees them (flat arguments, notes).
    Exit 1 when a server cannot be used."""
    from wenshu.mcp.client import McpHub
    from wenshu.mcp.config import load_servers
    from wenshu.mcp.errors import McpServerNotFound

    s = settings()
    with guarded(as_json=as_json):
        servers = load_servers(s.mcp_config_path)
        if name is not None and name not in servers:
            raise McpServerNotFound(name, list(servers))
        picked = {k: v for k, v in servers.items() if name is None or k == name}
        with McpHub(picked, timeout_s=s.mcp_timeout_s, connect_timeout_s=s.mcp_connect_timeout_s) as hub:
            listed, problems = hub.tools()
        if as_json:
            print(json.dumps({"tools": [{"name": t.qualified, "server": t.server, "description": t.description,
                                         "parameters": t.flat.parameters, "notes": t.flat.notes} for t in listed],
                              "errors": [p.to_dict() for p in problems]}, ensure_ascii=False))  # fmt: skip
        else:
            table = Table("tool", "arguments", "description")
            for t in listed:
                args = ", ".join(f"{k}{'' if k in t.flat.parameters['required'] else '?'}: {v['type']}"
                                 for k, v in t.flat.parameters["properties"].items())  # fmt: skip
                table.add_row(t.qualified, args, t.description + "".join(f"\n[dim]{n}[/]" for n in t.flat.notes))
            console.print(table)
            for p in problems:
                err_console.print(f"[bold red]{p.en}[/] [dim]({p.code})[/]", highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)


@app.command("serve")
def serve(
    transport: str = typer.Option("stdio", "--transport", "-t", help="stdio (for a local client) or http."),
    host: str = typer.Option("127.0.0.1", "--host", help="HTTP: address to bind; anything but loopback needs a token."),
    port: int = typer.Option(8766, "--port", help="HTTP: TCP port; the endpoint is /mcp."),
) -> None:
    """Be an MCP server with the tools ask, recall and run_sql. Over stdio it acts as the local user (like
    the CLI); over HTTP it checks bearer tokens and grants like `wenshu serve`."""
    from wenshu.server.mcp_app import run_mcp_server

    if transport not in ("stdio", "http"):
        raise typer.BadParameter("--transport is stdio or http")
    with guarded():
        run_mcp_server(settings(), transport=transport, host=host, port=port,
                       announce=lambda url: err_console.print(f"Wenshu MCP server at [bold]{url}[/] — Ctrl-C stops it."))
