"""Tools the model may call: the configured MCP servers (stdio and streamable HTTP).

Owns listing each server's tools for a message's place and calling them under a time limit and
a size cap; the turn (``bot.core.tool_rounds``) puts the guardrail around every call.
"""
