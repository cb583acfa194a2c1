"""``McpToolBox``: the ``ToolBox`` port over MCP servers, through the official ``mcp`` SDK.

Each call opens its own connection (a stdio server is started for it and stopped after), so
no session outlives a turn, a hung server costs one call and nothing is shared between
threads. A server's tool list is kept for ``LIST_TTL_SECONDS``. Nothing here raises to the
turn: a server that cannot be reached, fails, answers late or too much gives an error output.
A stdio server's standard error is discarded: it may print the values it was given.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Sequence
from typing import Any, TextIO

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from bot.config.tables import ToolServer, ToolSettings
from bot.core.types import InboundMessage, ToolOutput, ToolSpec

log = logging.getLogger(__name__)

LIST_TTL_SECONDS = 300.0
"""How long a server's tool list is used before it is asked again."""
LIST_TIMEOUT_SECONDS = 10.0
"""The least time a server's tool list may take (a stdio server starts first): a server
configured with a short call timeout is still listed."""
SEPARATOR = "__"
"""Between a server's name and its tool's in the name the model sees (``crm__lookup``)."""


class McpToolBox:
    """The configured MCP servers, offered where their ``scopes`` say.

    Args:
        settings: the ``[tools]`` table.
    """

    def __init__(self, settings: ToolSettings) -> None:
        self.max_rounds = settings.max_rounds
        self.deadline_seconds = settings.deadline_seconds
        self._servers = {s.name: s for s in settings.servers}
        self._listed: dict[str, tuple[float, tuple[ToolSpec, ...]]] = {}
        self._devnull: TextIO | None = None

    def __bool__(self) -> bool:
        return bool(self._servers)

    async def offered(self, message: InboundMessage) -> tuple[ToolSpec, ...]:
        """The allowed tools of every server whose scopes include the message's place."""
        places = _places(message)
        servers = [s for s in self._servers.values() if places & set(s.scopes)]
        listed = await asyncio.gather(*(self._tools_of(s) for s in servers))
        return tuple(spec for specs in listed for spec in specs)

    def reveals(self, name: str) -> bool:
        """Whether the tool's server is given real values (``reveal = true``)."""
        server = self._servers.get(name.split(SEPARATOR, 1)[0])
        return server is not None and server.reveal

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Call ``name`` (``SERVER__TOOL``) with ``arguments``; failures become error outputs."""
        server_name, _, tool = name.partition(SEPARATOR)
        server = self._servers.get(server_name)
        if server is None or tool not in server.tools:
            return ToolOutput(f"there is no tool named {name!r}", "unknown_tool", server_name, tool)
        try:
            async with asyncio.timeout(server.timeout_seconds):
                async with self._client(server) as client:
                    result = await client.call_tool(tool, arguments)
        except TimeoutError:
            log.warning("tool call timed out server=%s tool=%s", server.name, tool)
            return ToolOutput(
                f"the tool did not answer within {server.timeout_seconds:g} s",
                "timeout",
                server.name,
                tool,
            )
        except MCPError as exc:  # the server's own error: its words go through the guardrail
            log.warning("tool call refused server=%s tool=%s code=%s", server.name, tool, exc.code)
            return ToolOutput(f"the tool failed: {exc}", "error", server.name, tool)
        except Exception as exc:  # noqa: BLE001  (any failure of a server is the model's to read)
            log.warning(
                "tool call failed server=%s tool=%s error=%s", server.name, tool, type(exc).__name__
            )
            return ToolOutput(
                f"the tool's server failed ({type(exc).__name__})", "error", server.name, tool
            )
        text = _text_of(result.content, result.structured_content)
        if len(text) > server.max_result_chars:
            return ToolOutput(
                f"the tool's result was {len(text)} characters, more than the "
                f"{server.max_result_chars} it may give; ask for less",
                "too_large",
                server.name,
                tool,
            )
        status = "error" if result.is_error else "ok"
        return ToolOutput(text, status, server.name, tool)

    async def _tools_of(self, server: ToolServer) -> tuple[ToolSpec, ...]:
        known = self._listed.get(server.name)
        if known is not None and known[0] > time.monotonic():
            return known[1]
        try:
            async with asyncio.timeout(max(server.timeout_seconds, LIST_TIMEOUT_SECONDS)):
                async with self._client(server) as client:
                    listed = await client.list_tools()
        except Exception as exc:  # noqa: BLE001  (a server down: its tools are not offered)
            log.warning("tool list failed server=%s error=%s", server.name, type(exc).__name__)
            return ()
        allowed = set(server.tools)
        specs = tuple(
            ToolSpec(
                name=f"{server.name}{SEPARATOR}{tool.name}",
                description=tool.description or tool.name,
                schema=tool.input_schema,
            )
            for tool in listed.tools
            if tool.name in allowed
        )
        self._listed[server.name] = (time.monotonic() + LIST_TTL_SECONDS, specs)
        return specs

    def _client(self, server: ToolServer) -> Client:
        if server.url is not None:
            return Client(server.url, cache=None)
        if self._devnull is None:
            self._devnull = open(os.devnull, "w")  # noqa: SIM115  (kept for the process)
        params = StdioServerParameters(
            command=server.command or "", args=list(server.args), env=dict(server.env) or None
        )
        return Client(stdio_client(params, errlog=self._devnull), cache=None)

    async def aclose(self) -> None:
        """Close what the tool box keeps (the null device its servers' errors go to)."""
        if self._devnull is not None:
            self._devnull.close()
            self._devnull = None


def _places(message: InboundMessage) -> set[str]:
    """The scope ids that cover the message's place."""
    base = f"{message.platform}:{message.workspace}"
    places = {"*", base, f"{base}:{message.channel}"}
    if message.platform == "console":
        places.add("console")
    if message.parent_channel:
        places.add(f"{base}:{message.parent_channel}")
    return places


def _text_of(content: Sequence[Any], structured: Any) -> str:
    """A result's text blocks, joined; other blocks named; the structured value otherwise."""
    parts = []
    for block in content:
        kind = getattr(block, "type", "")
        parts.append(block.text if kind == "text" else f"[{kind or 'content'} not shown]")
    if not parts and structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(parts)
