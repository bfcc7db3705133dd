"""The MCP client: the configured servers' tools for a synchronous caller, through the official SDK.

The SDK is async (anyio); the assistant is not. A hub runs one event loop in a daemon thread (an anyio
blocking portal). Each server gets one task in it that opens the session (`mcp.Client` over stdio or
Streamable HTTP) and holds it open until the hub closes, so every call of a hub reuses the session, and
enter and exit happen in the same task as anyio requires.

Every wait is bounded on both sides: inside the loop by `anyio.fail_after`, outside by a deadline on the
future, after which the call is cancelled in the background and the caller gets `mcp_timeout` at once. A
server that is not installed, exits, writes something that is not JSON-RPC or does not finish the handshake
in time becomes `mcp_unavailable`, and the hub goes on with the others."""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.from_thread import start_blocking_portal

from wenshu.errors import WenshuError
from wenshu.mcp.config import ServerConfig, load_servers
from wenshu.mcp.errors import McpTimeout, McpToolError, McpUnavailable
from wenshu.mcp.flatten import FlatSchema, call_arguments, flatten_schema, qualified_name, short_description
from wenshu.mcp.results import CONNECTION_CLOSED, leaf, result_text, why

GRACE_S = 1.0  # past a limit, how long the caller still waits for the loop to report before it stops waiting
CLOSE_S = 8.0  # how long closing waits for the servers to stop (the SDK closes stdin, then terminates, then kills)
MAX_PAGES = 20  # tools/list pages read from one server
_HUBS: weakref.WeakSet = weakref.WeakSet()


@dataclass(frozen=True)
class McpTool:
    server: str
    name: str  # the server's name for it
    qualified: str  # <server>__<tool>: the name the assistant offers
    description: str
    flat: FlatSchema


class _Connection:
    """One server's session, held open by one task in the hub's loop until `stop` is set."""

    def __init__(self, config: ServerConfig, timeout_s: float):
        self.config, self.timeout_s = config, timeout_s
        self.client = None
        self.error: BaseException | None = None
        self.garbage: str | None = None  # the first output that was not JSON-RPC
        self.settled = threading.Event()  # connected, or failed
        self.stop: anyio.Event | None = None
        self.future: concurrent.futures.Future | None = None
        self.stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") if config.command else None

    async def run(self) -> None:
        from mcp import Client

        self.stop = anyio.Event()
        try:
            async with contextlib.AsyncExitStack() as stack:
                # no read timeout of the SDK's own: the hub bounds every wait, and a slow-starting server
                # must not fail the handshake's first probe before the connect time limit
                client = Client(await self._transport(stack), message_handler=self._on_message)
                self.client = await stack.enter_async_context(client)
                self.settled.set()
                await self.stop.wait()
        except Exception as err:  # noqa: BLE001 - reported as mcp_unavailable
            self.error = err
        finally:
            self.client = None
            self.settled.set()

    async def _transport(self, stack: contextlib.AsyncExitStack):
        if self.config.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=self.config.headers or None, timeout=httpx2.Timeout(self.timeout_s, read=300)))
            return streamable_http_client(self.config.url, http_client=http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=self.config.command, args=self.config.args, env=self.config.env or None,
                                       cwd=self.config.cwd)  # fmt: skip
        return stdio_client(params, errlog=self.stderr)

    async def _on_message(self, message) -> None:
        if isinstance(message, Exception) and self.garbage is None:
            errors = getattr(message, "errors", None)
            first = errors()[0] if callable(errors) and errors() else {}
            self.garbage = str(first.get("input", message))
            if self.client is None:
                self.settled.set()  # during the handshake: no need to wait for the timeout

    def stderr_text(self) -> str:
        if self.stderr is None:
            return ""
        with contextlib.suppress(ValueError, OSError):
            self.stderr.flush()
            self.stderr.seek(0)
            return self.stderr.read()[-2000:]
        return ""

    def unavailable(self, timed_out: float | None = None) -> McpUnavailable:
        garbage = self.garbage if self.client is None else None
        return McpUnavailable(self.config.name, why(self.config, self.error, stderr=self.stderr_text(),
                                                    garbage=garbage, timed_out=timed_out))  # fmt: skip


class McpHub:
    """The configured MCP servers of one assistant (or one command): started on first use, closed by `close`."""

    def __init__(self, servers: Mapping[str, ServerConfig], *, timeout_s: float = 20.0,
                 connect_timeout_s: float = 30.0, config_error: WenshuError | None = None):
        self.servers = dict(servers)
        self.timeout_s, self.connect_timeout_s = timeout_s, connect_timeout_s
        self.config_error = config_error
        self._lock = threading.RLock()
        self._stack: contextlib.ExitStack | None = None
        self._portal = None
        self._connections: dict[str, _Connection] = {}
        self._listed: dict[str, list[McpTool] | WenshuError] | None = None

    @classmethod
    def from_file(cls, path: Path, **limits) -> McpHub:
        """The servers of an mcp.json; a file that cannot be read leaves none, with the reason kept."""
        try:
            return cls(load_servers(path), **limits)
        except WenshuError as err:
            return cls({}, config_error=err, **limits)

    def __enter__(self) -> McpHub:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def tools(self) -> tuple[list[McpTool], list[WenshuError]]:
        """The tools of every server that works, and one error per server that does not (listed once a hub)."""
        with self._lock:
            if self._listed is None:
                self._listed = self._list_all()
            tools: list[McpTool] = []
            problems = [self.config_error] if self.config_error else []
            for name, listed in self._listed.items():
                conn = self._connections.get(name)
                if isinstance(listed, WenshuError):
                    problems.append(listed)
                elif conn is not None and conn.client is None:  # it has died since
                    problems.append(conn.unavailable())
                else:
                    tools += listed
            return tools, problems

    def known(self) -> list[McpTool]:
        """The tools of the servers listed so far, without starting or waiting for any (none before `tools`)."""
        listed = self._listed
        return [t for found in (listed or {}).values() if not isinstance(found, WenshuError) for t in found]

    def call(self, tool: McpTool, arguments: dict) -> str:
        """Call a tool with the model's flat arguments; the result as text, or a WenshuError."""
        conn = self._connections.get(tool.server)
        if conn is None or conn.client is None:
            raise (conn.unavailable() if conn else McpUnavailable(tool.server, "it was never started"))
        args = call_arguments(tool.flat, arguments, tool.qualified)
        result = self._bounded(conn, f"the call of '{tool.name}'", lambda c: c.call_tool(tool.name, args), tool.name)
        return result_text(result, tool.server, tool.name)

    def _bounded(self, conn: _Connection, what: str, fn, tool: str | None = None):
        """`fn(client)` run in the loop within the time limit; a protocol error of a tool call (unknown
        tool, invalid arguments) is that tool's failure, any other failure makes the server unavailable."""
        async def within():
            with anyio.fail_after(self.timeout_s):
                return await fn(conn.client)

        future = self._portal.start_task_soon(within)
        try:
            return future.result(timeout=self.timeout_s + GRACE_S)
        except TimeoutError as err:  # concurrent.futures.TimeoutError is TimeoutError
            future.cancel()
            raise McpTimeout(conn.config.name, what, self.timeout_s) from err
        except WenshuError:
            raise
        except Exception as err:
            code = getattr(leaf(err), "code", None)
            if conn.client is None or code == CONNECTION_CLOSED:  # the connection is gone
                raise conn.unavailable() from err
            if tool is not None and isinstance(code, int):
                raise McpToolError(conn.config.name, tool, getattr(leaf(err), "message", str(err))) from err
            raise McpUnavailable(conn.config.name, why(conn.config, err)) from err

    def _start(self) -> None:
        """Open the loop and start every enabled server at once; wait for all under one deadline."""
        usable = {n: c for n, c in self.servers.items() if not c.disabled and not c.error}
        if not usable:
            return
        if self._portal is None:
            logging.getLogger("mcp.client").setLevel(logging.CRITICAL)  # failures are reported as sentences
            self._stack = contextlib.ExitStack()
            self._portal = self._stack.enter_context(start_blocking_portal(name="wenshu-mcp"))
            _HUBS.add(self)
        for name, config in usable.items():
            if name not in self._connections:
                conn = self._connections[name] = _Connection(config, self.timeout_s)
                conn.future = self._portal.start_task_soon(conn.run)
        deadline = time.monotonic() + self.connect_timeout_s
        for conn in self._connections.values():
            conn.settled.wait(max(0.0, deadline - time.monotonic()))

    def _list_all(self) -> dict[str, list[McpTool] | WenshuError]:
        self._start()
        listed: dict[str, list[McpTool] | WenshuError] = {}
        for name, config in self.servers.items():
            conn = self._connections.get(name)
            if config.error:
                listed[name] = McpUnavailable(name, config.error)
            elif conn is None:
                continue  # disabled
            elif conn.client is None:
                if conn.future is not None:
                    conn.future.cancel()  # still starting, or stuck: it is stopped in the background
                listed[name] = conn.unavailable(None if conn.error or conn.garbage else self.connect_timeout_s)
            else:
                try:
                    listed[name] = self._tools_of(conn)
                except WenshuError as err:
                    listed[name] = err
        return listed

    def _tools_of(self, conn: _Connection) -> list[McpTool]:
        async def pages(client):
            found, cursor = [], None
            for _ in range(MAX_PAGES):
                page = await client.list_tools(cursor=cursor)
                found += page.tools
                cursor = page.next_cursor
                if not cursor:
                    break
            return found

        tools, names = [], set()
        for t in self._bounded(conn, "the tool list", pages):
            qualified = qualified_name(conn.config.name, t.name)
            while qualified in names:  # two names that sanitize alike
                qualified = qualified[:60] + f"_{len(names)}"
            names.add(qualified)
            tools.append(McpTool(conn.config.name, t.name, qualified, short_description(t.description or t.title
                                 or t.name), flatten_schema(t.input_schema)))  # fmt: skip
        return tools

    def close(self) -> None:
        """Stop every server (stdio processes are ended) and the loop; safe to call twice."""
        with self._lock:
            if self._portal is None:
                return
            portal, stack, conns = self._portal, self._stack, list(self._connections.values())
            self._portal = self._stack = None
            self._connections, self._listed = {}, None
        for conn in conns:
            if conn.stop is not None:
                with contextlib.suppress(Exception):
                    portal.call(conn.stop.set)
        concurrent.futures.wait([c.future for c in conns if c.future], timeout=CLOSE_S)
        with contextlib.suppress(Exception):
            portal.call(portal.stop, True)  # cancel what is left (a server that ignored the stop)
        with contextlib.suppress(Exception):
            stack.close()
        for conn in conns:
            if conn.stderr is not None:
                conn.stderr.close()


@atexit.register
def _close_open_hubs() -> None:
    for hub in list(_HUBS):
        hub.close()
