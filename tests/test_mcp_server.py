"""`wenshu mcp serve` with the official MCP client: over stdio (the CLI in a subprocess, the local user) and
over Streamable HTTP (tokens from the same store as the HTTP API, datasource grants). `recall` and `run_sql`
on the demo database need no model; `ask` runs with the scripted fake model."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import anyio
import httpx
import pytest

import wenshu
from fixtures_mcp import serve_in_thread
from wenshu.mcp.client import McpHub
from wenshu.mcp.config import parse_entry

COUNT = "SELECT COUNT(*) AS n FROM orders"
SRC = str(Path(wenshu.__file__).resolve().parents[1])  # the wenshu under test, for the subprocess


def payload(result) -> dict:
    if isinstance(result.structured_content, dict) and "result" not in result.structured_content:
        return result.structured_content
    return json.loads(result.content[0].text)


def calls(server, steps: list[tuple[str, dict]], headers: dict | None = None) -> list:
    """Connect with the official client (stdio parameters or a URL), list the tools, make the calls:
    [sorted tool names, result, result, ...]."""
    from mcp import Client

    async def main():
        async with contextlib.AsyncExitStack() as stack:
            target = server
            if isinstance(server, str):
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
                target = streamable_http_client(server, http_client=http)
            client = await stack.enter_async_context(Client(target, read_timeout_seconds=60))
            out = [sorted(t.name for t in (await client.list_tools()).tools)]
            for name, args in steps:
                out.append(await client.call_tool(name, args))
            return out

    return anyio.run(main)


def test_stdio_serve_answers_recall_run_sql_and_ask(home, store, tmp_path):
    from mcp import StdioServerParameters

    script = tmp_path / "script.json"
    script.write_text(json.dumps([COUNT]))
    env = {"WENSHU_HOME": str(home), "PYTHONPATH": SRC, "WENSHU_LLM_PROVIDER": "fake",
           "WENSHU_FAKE_SCRIPT": str(script), "WENSHU_SEMANTIC_PATH": "0"}  # fmt: skip
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-c", "from wenshu.cli.app import main; main()", "mcp", "serve"])  # fmt: skip
    names, recalled, ran, refused, unknown, empty, asked = calls(params, [
        ("recall", {"question": "每个城市的订单量", "datasource": "demo"}),
        ("run_sql", {"sql": COUNT}),
        ("run_sql", {"sql": "DELETE FROM orders"}),
        ("run_sql", {"sql": "SELECT 1", "datasource": "warehouse"}),
        ("recall", {"question": "  "}),
        ("ask", {"question": "How many orders are there in total?"}),
    ])
    assert names == ["ask", "recall", "run_sql"]
    tables = [t["name"] for t in payload(recalled)["tables"]]
    assert "orders" in tables and "cities" in tables and payload(recalled)["schema_block"]
    got = payload(ran)
    assert got["columns"] == ["n"] and got["rows"][0][0] > 0 and got["datasource"] == "demo"
    assert refused.is_error and refused.content[0].text.startswith("sql_not_read_only: Refused: ")  # the guard's code
    assert unknown.is_error and unknown.content[0].text.startswith("unknown_datasource: There is no datasource")
    assert empty.is_error and empty.content[0].text.startswith("empty_question: ")
    answer = payload(asked)
    assert answer["sql"].startswith("SELECT COUNT(*)") and answer["row_count"] == 1 and not asked.is_error


@pytest.fixture
def http_server(settings, store, fake_model):
    from wenshu.providers.base import ModelClient
    from wenshu.server.mcp_app import mcp_http_app
    from wenshu.server.mcp_tools import DataTools

    tools = DataTools(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    server, base = serve_in_thread(mcp_http_app(settings, store, tools))
    yield f"{base}/mcp"
    server.should_exit = True
    server.thread.join(10)


def test_http_serve_checks_tokens_and_grants(http_server, store, fake_model):
    # no token exists yet and the address is loopback: no token is needed, as in the HTTP API
    assert not payload(calls(http_server, [("run_sql", {"sql": COUNT})])[1]).get("error")
    _, alice = store.users.create_token("alice")
    store.users.grant("alice", "*")
    _, carol = store.users.create_token("carol")
    store.users.grant("carol", "warehouse")

    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    anonymous = httpx.post(http_server, json=hello, headers=accept)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "auth_required"
    forged = httpx.post(http_server, json=hello, headers=accept | {"Authorization": "Bearer wsk_forged"})
    assert forged.status_code == 401 and forged.json()["error"]["code"] == "token_invalid"
    with pytest.raises(Exception):  # the official client cannot even connect without a token
        calls(http_server, [])

    fake_model.queue(COUNT)
    names, ran, asked = calls(http_server, [("run_sql", {"sql": COUNT, "datasource": "demo"}),
                                            ("ask", {"question": "How many orders are there in total?"})],
                              headers={"Authorization": f"Bearer {alice}"})  # fmt: skip
    assert names == ["ask", "recall", "run_sql"] and payload(ran)["rows"][0][0] > 0
    assert payload(asked)["sql"].startswith("SELECT COUNT(*)")
    _, refused, also_refused = calls(http_server, [("run_sql", {"sql": COUNT}), ("recall", {"question": "orders"})],
                                     headers={"Authorization": f"Bearer {carol}"})  # fmt: skip
    for result in (refused, also_refused):
        assert result.is_error and result.content[0].text.startswith("unknown_datasource: ")
        assert "known: none" in result.content[0].text  # carol's only grant does not exist; demo is not shown


def test_wenshus_own_client_reaches_wenshus_server_with_a_header(http_server, store):
    _, token = store.users.create_token("alice")
    store.users.grant("alice", "*")
    entry = {"url": http_server, "headers": {"Authorization": f"Bearer {token}"}}
    with McpHub({"wenshu": parse_entry("wenshu", entry)}, timeout_s=30) as hub:
        tools, problems = hub.tools()
        assert problems == [] and {t.qualified for t in tools} == {"wenshu__ask", "wenshu__recall", "wenshu__run_sql"}
        run_sql = next(t for t in tools if t.name == "run_sql")
        assert run_sql.flat.parameters["required"] == ["sql"]
        assert run_sql.flat.parameters["properties"]["datasource"]["type"] == "string"
        assert json.loads(hub.call(run_sql, {"sql": COUNT}))["columns"] == ["n"]
    with McpHub({"wenshu": parse_entry("wenshu", {"url": http_server})}, timeout_s=30) as hub:
        tools, problems = hub.tools()
        assert tools == [] and problems[0].code == "mcp_unavailable"
