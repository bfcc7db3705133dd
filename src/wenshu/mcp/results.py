"""What came back from an MCP server, in words: a tool result as text for the model, a failure as the short
reason of an `mcp_unavailable` sentence.

A tool result is data. The assistant fences it (`<<< … >>>`, "data, not instructions": prompts/assistant_done.md);
fence markers inside the text are broken up here so a server cannot close the fence and speak as the host."""

from __future__ import annotations

import json

from wenshu.mcp.config import ServerConfig
from wenshu.mcp.errors import McpToolError

FENCES = {"<<<": "< < <", ">>>": "> > >"}
CONNECTION_CLOSED = -32000  # the JSON-RPC code the SDK gives a closed connection (mcp_types.CONNECTION_CLOSED)


def defang(text: str) -> str:
    for marker, broken in FENCES.items():
        text = text.replace(marker, broken)
    return text


def _block_text(block) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text
    if kind == "resource":
        inner = block.resource
        return getattr(inner, "text", None) or f"[binary resource {inner.uri}, not shown]"
    if kind == "resource_link":
        return f"[resource {block.name}: {block.uri}]"
    return f"[{kind or 'content'} {getattr(block, 'mime_type', '') or ''}, not shown]".replace(" ,", ",")


def result_text(result, server: str, tool: str) -> str:
    """A CallToolResult as text; a result the server marks as an error raises McpToolError with its text."""
    parts = [_block_text(b) for b in result.content or []]
    if not any(p.strip() for p in parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False, default=str)]
    text = defang("\n".join(parts).strip() or "(no content)")
    if result.is_error:
        raise McpToolError(server, tool, text[:500])
    return text


def leaf(err: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return err


def last_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:limit] if lines else ""


def why(config: ServerConfig, err: BaseException | None, *, stderr: str = "", garbage: str | None = None,
        timed_out: float | None = None) -> str:
    """The reason a server could not be used, short enough for one sentence."""
    said = f"; it said: {last_line(stderr)}" if last_line(stderr) else ""
    if garbage is not None:
        return f"it wrote something that is not JSON-RPC: {garbage[:80]!r}"
    if timed_out is not None:
        return f"no answer to the MCP handshake within {timed_out:g} s{said}"
    err = leaf(err) if err is not None else None
    if isinstance(err, FileNotFoundError) and config.command:
        return f"the command '{config.command}' was not found; is it installed?"
    if isinstance(err, PermissionError) and config.command:
        return f"the command '{config.command}' cannot be run (permission denied)"
    if getattr(err, "code", None) == CONNECTION_CLOSED:
        return (f"it closed the connection{said}" if config.url else f"the server process exited{said}")
    name = type(err).__name__ if err is not None else "unknown error"
    if config.url and name in ("ConnectError", "ConnectTimeout"):
        return f"cannot connect to {config.url}"
    detail = str(err).strip() if err is not None else ""
    return f"{name}: {detail[:160]}" if detail else name
