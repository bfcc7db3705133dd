"""The MCP servers `python -m bench tools` starts (official SDK, stdio), so requests for MCP tools and web
search have real tools to be offered through the same host retrieval as the built-in ones.

    python bench/tool_servers.py office   # a team's work tools: support tickets, team chat messages
    python bench/tool_servers.py search   # a Tavily-compatible search (`tavily-search`): canned results

The bench scores only the first step the model chooses; these tools answer plainly so a run never hangs.
"""

from __future__ import annotations

import json
import sys

from mcp.server.mcpserver import MCPServer


def office() -> MCPServer:
    server = MCPServer("office")

    @server.tool(description="Search the customer support tickets by keywords; returns matching tickets.")
    def search_tickets(query: str) -> str:
        return json.dumps({"query": query, "tickets": []})

    @server.tool(description="Create a new support ticket with a title and a description.")
    def create_ticket(title: str, description: str = "") -> str:
        return json.dumps({"id": 1, "title": title})

    @server.tool(description="Send a text message to a team chat channel.")
    def send_message(channel: str, text: str) -> str:
        return json.dumps({"channel": channel, "sent": True})

    return server


def search() -> MCPServer:
    server = MCPServer("search")

    @server.tool(name="tavily-search", description="Search the web and return results with URLs and content.")
    def tavily_search(query: str, max_results: int = 5) -> str:
        return json.dumps({"query": query, "results": [
            {"url": "https://example.org/a", "title": f"About {query}", "content": f"A page about {query}."}]})

    return server


if __name__ == "__main__":
    {"office": office, "search": search}[sys.argv[1]]().run()
