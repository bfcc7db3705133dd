"""The MCP client's refusals: one sentence in each language and a stable code.

`why` details come from the server or the operating system and stay as they were said (mostly English)."""

from __future__ import annotations

from wenshu.errors import InputError, NotFound, WenshuError


class McpUnavailable(WenshuError):
    """A configured server that cannot be used: not installed, exited, not speaking JSON-RPC, unreachable."""

    code = "mcp_unavailable"

    def __init__(self, server: str, why: str):
        self.server, self.why = server, why
        super().__init__(f"The MCP server '{server}' is not available ({why}); its tools are left out.",
                         f"MCP 服务「{server}」不可用（{why}），已略过它的工具。")


class McpTimeout(WenshuError):
    code = "mcp_timeout"

    def __init__(self, server: str, what: str, seconds: float):
        super().__init__(f"The MCP server '{server}' did not answer {what} within {seconds:g} s; the call was stopped.",
                         f"MCP 服务「{server}」未在 {seconds:g} 秒内响应 {what}，已停止该调用。")


class McpToolError(WenshuError):
    """The server ran the tool and reported a failure (`isError`): its text is passed on as data."""

    code = "mcp_tool_error"

    def __init__(self, server: str, tool: str, text: str):
        super().__init__(f"The MCP tool '{tool}' of server '{server}' failed: {text}",
                         f"MCP 服务「{server}」的工具「{tool}」执行失败：{text}")


class McpArgumentError(InputError):
    code = "mcp_bad_argument"

    def __init__(self, tool: str, argument: str, why: str):
        super().__init__(f"The argument '{argument}' of '{tool}' is not valid: {why}.",
                         f"「{tool}」的参数「{argument}」无效：{why}。")


class McpConfigInvalid(InputError):
    code = "mcp_config_invalid"

    def __init__(self, where: str, why: str):
        super().__init__(f"The MCP configuration {where} is not valid: {why}.", f"MCP 配置 {where} 无效：{why}。")


class McpServerNotFound(NotFound):
    code = "mcp_server_not_found"

    def __init__(self, name: str, known: list[str]):
        listed = ", ".join(known) or "none"
        super().__init__(f"There is no MCP server named '{name}' (configured: {listed}); add one with "
                         f"`wenshu mcp add {name} -- COMMAND ARGS`.",
                         f"没有名为「{name}」的 MCP 服务（已配置：{listed}）；请用 `wenshu mcp add {name} -- 命令 参数` 添加。")
