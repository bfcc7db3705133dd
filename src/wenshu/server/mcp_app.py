"""`wenshu mcp serve`: Wenshu as an MCP server (official SDK), with the tools ask, recall and run_sql.

Over stdio the caller is the local user, as on the command line. Over Streamable HTTP (`/mcp`) every HTTP
request passes the same token check as the HTTP API (`server/auth.py`): when a token is required, a request
without a valid one gets 401 before MCP sees it; each tool call then acts as the token's user and is refused
a datasource the user is not granted. A failure comes back as an MCP tool error: "<code>: <sentence>"."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import Field
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from wenshu.prompts import render
from wenshu.errors import AuthNotConfigured, WenshuError
from wenshu.server.auth import LOCAL, Principal, auth_required, authenticate, is_loopback
from wenshu.server.mcp_tools import DataTools, lang_of
from wenshu.settings import Settings

Question = Annotated[str, Field(description="The question about the data, in Chinese or English.")]
Sql = Annotated[str, Field(description="One read-only SQL statement (SELECT / WITH).")]
Datasource = Annotated[str | None, Field(description="The datasource name (default: the server's default, e.g. demo).")]
CallerOf = Callable[[Context], Principal]


def _result(call: Callable[[], dict], lang: str) -> CallToolResult:
    """The tool's dict as JSON text and structured content; a WenshuError as a tool error "<code>: <sentence>"."""
    try:
        out = call()
    except WenshuError as err:
        return CallToolResult(content=[TextContent(type="text", text=f"{err.code}: {err.message(lang)}")], is_error=True)
    text = json.dumps(out, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=out)


def build_mcp_server(tools: DataTools, caller_of: CallerOf) -> MCPServer:
    """The MCP server; `caller_of(ctx)` says who makes a call (the local user, or a token's user)."""
    server = MCPServer("wenshu", instructions=render("mcp_server_instructions").strip(), log_level="WARNING")

    @server.tool(description="Answer a question about the data: the answer, the SQL, its columns and first rows. "
                 "Needs a model (embedded or an endpoint).")  # fmt: skip
    def ask(question: Question, ctx: Context, datasource: Datasource = None) -> CallToolResult:
        return _result(lambda: tools.ask(caller_of(ctx), question, datasource), lang_of(question))

    @server.tool(description="Which tables, columns and values a question touches (schema recall), with the schema "
                 "block a model would see. No model needed.")  # fmt: skip
    def recall(question: Question, ctx: Context, datasource: Datasource = None) -> CallToolResult:
        return _result(lambda: tools.recall(caller_of(ctx), question, datasource), lang_of(question))

    @server.tool(description="Run one read-only SQL statement through Wenshu's guard (read-only, known tables and "
                 "columns, row limit, timeout): columns and first rows. No model needed.")  # fmt: skip
    def run_sql(sql: Sql, ctx: Context, datasource: Datasource = None) -> CallToolResult:
        return _result(lambda: tools.run_sql(caller_of(ctx), sql, datasource), "en")

    return server


class BearerGate:
    """ASGI middleware: every HTTP request must pass the token check first (401 in the API's error shape)."""

    def __init__(self, app: ASGIApp, store, required: Callable[[], bool]):
        self.app, self.store, self.required = app, store, required

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            from wenshu.server.deps import request_lang
            from wenshu.server.errors import error_response

            request = Request(scope)
            try:
                authenticate(self.store, request.headers.get("authorization"), required=self.required)
            except WenshuError as err:
                response = error_response(err, request_lang(request), 401)
                response.headers["WWW-Authenticate"] = "Bearer"
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def mcp_http_app(settings: Settings, store, tools: DataTools, bind_host: str = "127.0.0.1") -> ASGIApp:
    """The Streamable HTTP app (endpoint /mcp) behind the token check."""

    def required() -> bool:
        return auth_required(settings, store, bind_host)

    def caller_of(ctx: Context) -> Principal:
        headers = ctx.headers or {}
        return authenticate(store, headers.get("authorization"), required=required)

    app = build_mcp_server(tools, caller_of).streamable_http_app(host=bind_host)
    return BearerGate(app, store, required)


def run_mcp_server(settings: Settings, *, transport: str, host: str = "127.0.0.1", port: int = 8766,
                   announce: Callable[[str], None] = lambda url: None) -> None:
    """Serve until stopped. Over stdio nothing may be printed to stdout: it carries the protocol."""
    import anyio

    from wenshu.bootstrap import ensure_demo, open_store

    store = open_store(settings)
    try:
        ensure_demo(settings, store)
        tools = DataTools(settings, store)
        if transport == "stdio":
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends it quietly
                anyio.run(build_mcp_server(tools, lambda ctx: LOCAL).run_stdio_async)
            return
        if not is_loopback(host) and not store.users.any_active():
            raise AuthNotConfigured()
        _serve_http(mcp_http_app(settings, store, tools, bind_host=host), host, port, announce)
    finally:
        store.close()


def _serve_http(app: ASGIApp, host: str, port: int, announce: Callable[[str], None]) -> None:
    import uvicorn

    shown = f"[{host}]" if ":" in host else ("127.0.0.1" if host in ("0.0.0.0", "") else host)

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets)
            if self.started:
                announce(f"http://{shown}:{port}/mcp")

    server = Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5))
    server.run()
    if not server.started:
        raise SystemExit(1)
