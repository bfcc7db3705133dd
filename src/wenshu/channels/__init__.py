"""Chat channels: one small interface (`base.Channel`) and adapters for chat robots.

Every channel turns an incoming platform message into an AgentRequest and an AgentResponse into
the platform's reply (text with the SQL and a table, plus a chart image rendered server-side).
"""
