"""The MCP servers Wenshu may start or reach, kept in `WENSHU_HOME/mcp.json` in the shape Claude Desktop uses,
so an existing configuration can be pasted in as it is:

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                  "env": {"KEY": "value"}},
        "tickets": {"url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer ..."}}}}

A server with `"disabled": true` is listed but never started. An entry that cannot be used (no command and
no URL, the SSE transport) keeps its place with an `error`, so the other servers still work."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from wenshu.mcp.errors import McpConfigInvalid, McpServerNotFound

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$")
HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}


@dataclass(frozen=True)
class ServerConfig:
    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    error: str | None = None  # why the entry cannot be used, in English

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def target(self) -> str:
        """What is started or reached, without env values or headers (they may hold secrets)."""
        return self.url or " ".join([self.command or "?", *self.args])

    def to_entry(self) -> dict:
        """The entry as it is written to mcp.json."""
        if self.url:
            return {"url": self.url, **({"headers": dict(self.headers)} if self.headers else {})}
        entry: dict = {"command": self.command, "args": list(self.args)}
        entry.update({k: v for k, v in (("env", dict(self.env)), ("cwd", self.cwd)) if v})
        return entry


def _strings(value, what: str) -> str | None:
    ok = isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    return None if ok else f"'{what}' must be an object of text values"


def parse_entry(name: str, entry) -> ServerConfig:
    """One `mcpServers` entry; what is wrong with it goes into `error` rather than raising."""
    if not isinstance(entry, dict):
        return ServerConfig(name, error="the entry is not a JSON object")
    disabled = bool(entry.get("disabled", False))
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    command, url = entry.get("command"), entry.get("url") or entry.get("serverUrl")
    problem = None
    if kind == "sse":
        problem = "the SSE transport is not supported; use a Streamable HTTP URL or a command"
    elif bool(command) == bool(url):
        problem = "give either a 'command' (stdio) or a 'url' (Streamable HTTP)"
    elif url and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        problem = "'url' must start with http:// or https://"
    elif command and not isinstance(command, str):
        problem = "'command' must be text"
    elif command and not (isinstance(entry.get("args", []), list) and all(isinstance(a, str) for a in entry.get("args", []))):
        problem = "'args' must be a list of text values"
    elif kind and kind not in HTTP_TYPES | {"stdio"}:
        problem = f"unknown transport type '{kind}'"
    else:
        problem = _strings(entry.get("env", {}), "env") or _strings(entry.get("headers", {}), "headers")
    if problem:
        return ServerConfig(name, disabled=disabled, error=problem)
    if url:
        return ServerConfig(name, url=url, headers=dict(entry.get("headers", {})), disabled=disabled)
    cwd = entry.get("cwd")
    return ServerConfig(name, command=command, args=list(entry.get("args", [])), env=dict(entry.get("env", {})),
                        cwd=cwd if isinstance(cwd, str) else None, disabled=disabled)


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise McpConfigInvalid(str(path), f"not JSON ({err})") from err
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise McpConfigInvalid(str(path), 'expected {"mcpServers": {"name": {...}}}')
    return data


def load_servers(path: Path) -> dict[str, ServerConfig]:
    """Every configured server by name, in file order; a missing file means none."""
    return {name: parse_entry(name, entry) for name, entry in _read(path).get("mcpServers", {}).items()}


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.chmod(tmp, 0o600)  # env values and headers may hold API keys
    tmp.replace(path)


def add_server(path: Path, server: ServerConfig, *, replace: bool = False) -> ServerConfig:
    """Write one server into the file, keeping everything else in it (other keys included)."""
    if not NAME.match(server.name):
        raise McpConfigInvalid(f"(server '{server.name}')", "a name is 1-48 letters, digits, '_', '.' or '-'")
    checked = parse_entry(server.name, server.to_entry())
    if checked.error:
        raise McpConfigInvalid(f"(server '{server.name}')", checked.error)
    data = _read(path)
    servers = data.setdefault("mcpServers", {})
    if server.name in servers and not replace:
        raise McpConfigInvalid(f"(server '{server.name}')", "a server of that name exists; pass --replace")
    servers[server.name] = server.to_entry()
    _write(path, data)
    return checked


def remove_server(path: Path, name: str) -> None:
    data = _read(path)
    servers = data.get("mcpServers", {})
    if name not in servers:
        raise McpServerNotFound(name, list(servers))
    del servers[name]
    _write(path, data)
