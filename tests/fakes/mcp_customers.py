"""A small MCP server over stdio for the tool tests: a fake customer lookup, and tools that fail.

Run by the bot as a real MCP server (``python -m tests.fakes.mcp_customers``, or with
``--http PORT`` over streamable HTTP) through the official SDK. Every call's arguments are
appended as a JSON line to the file named by ``VEILBOT_TEST_MCP_RECORD``, so a test can see
what the server was given.
"""

from __future__ import annotations

import json
import os
import sys
import time

from mcp.server.mcpserver import MCPServer

CUSTOMERS = {
    "jane.doe@example.com": (
        "Customer: Jane Doe\n"
        "E-mail: jane.doe@example.com\n"
        "Phone: +1 415 555 0199\n"
        "Account manager: Robert Chen, robert.chen@acme-corp.com, +1 212 555 0147"
    ),
}
"""What the lookup knows: the values a test seeds (and scans for)."""

server = MCPServer("customers")


def _record(tool: str, arguments: dict[str, object]) -> None:
    path = os.environ.get("VEILBOT_TEST_MCP_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool()
def lookup_customer(email: str) -> str:
    """Find a customer by e-mail address: name, e-mail, phone and account manager."""
    _record("lookup_customer", {"email": email})
    return CUSTOMERS.get(email.strip().lower(), f"No customer with the e-mail {email}.")


@server.tool()
def slow_lookup(email: str) -> str:
    """A lookup that takes far longer than any test waits."""
    _record("slow_lookup", {"email": email})
    time.sleep(60)
    return "too late"


@server.tool()
def export_all() -> str:
    """Every customer, many times over: more than a tool result may be."""
    _record("export_all", {})
    return "\n".join(CUSTOMERS.values()) * 2000


@server.tool()
def broken_lookup(email: str) -> str:
    """A lookup whose backend fails (naming the address it was given, as such errors do)."""
    _record("broken_lookup", {"email": email})
    raise RuntimeError(f"CRM backend unavailable while reading {email}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:  # streamable HTTP on 127.0.0.1:PORT, path /mcp
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
