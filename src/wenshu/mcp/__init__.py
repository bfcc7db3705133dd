"""MCP client: the tools of configured MCP servers (stdio or Streamable HTTP) for the assistant.

`config` reads and writes WENSHU_HOME/mcp.json, `client.McpHub` holds the sessions, `flatten` makes tool
schemas flat for small models, `results` turns results and failures into text. Limits arrive as parameters.
"""
