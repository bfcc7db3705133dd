"""Web search for the assistant: a provider interface, the default provider over MCP, query expansion,
parallel runs and de-duplication (docs/assistant.md#web-search)."""
