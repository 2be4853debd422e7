"""fastmcp's client for ``mcp-elicit check client``, written the way fastmcp's documentation
shows (``Client(url, elicitation_handler=...)``), without mcp-elicit: a column of the
compatibility matrix (docs/compatibility.md).

    .venv/bin/python tests/peer_servers/fastmcp_check_client.py SERVER_URL

Its handler is the application a person answers through: a form gets the fields the form
requires, filled in; a link is agreed to (and not opened here). It calls every tool listed;
a call that fails ends it with an error, as the official suite expects of its clients.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.exceptions import ToolError

TYPED = {"email": "person@example.com", "age": 42, "plan": "basic"}


async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
    if getattr(params, "mode", None) == "url":
        return ElicitResult(action="accept")
    schema = params.requested_schema
    return {name: TYPED.get(name, "check") for name in schema.get("required") or []}


async def main(url: str) -> int:
    async with Client(url, elicitation_handler=handler) as client:
        for tool in await client.list_tools():
            try:
                await client.call_tool(tool.name, {})
            except ToolError as error:
                if "-32042" not in str(error) and "URL elicitation" not in str(error):
                    raise
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fastmcp_check_client.py SERVER_URL")
    sys.exit(anyio.run(main, sys.argv[1]))
