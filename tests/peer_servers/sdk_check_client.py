"""The official Python SDK's client for ``mcp-elicit check client``, written the way the SDK's
documentation shows (``mcp.Client(url, elicitation_callback=...)``), without mcp-elicit: a
column of the compatibility matrix (docs/compatibility.md).

    .venv/bin/python tests/peer_servers/sdk_check_client.py [--protocol auto|legacy] SERVER_URL

Its callback is the application a person answers through: a form gets the fields the form
requires, filled in (the SDK fills nothing else); a link is agreed to (and not opened here).
It calls every tool the server lists; a call that fails ends it with an error, as the
official suite expects of the clients it runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.shared.exceptions import MCPError

TYPED = {"email": "person@example.com", "age": 42, "plan": "basic"}


async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    schema = params.requested_schema
    required = schema.get("required") or []
    content = {name: TYPED.get(name, "check") for name in required}
    return types.ElicitResult(action="accept", content=content)


async def main(url: str, mode: str) -> int:
    async with Client(url, mode=mode, elicitation_callback=answer) as client:
        tools = await client.list_tools()
        for tool in tools.tools:
            try:
                await client.call_tool(tool.name, {})
            except MCPError as error:
                if error.code != -32042:  # "open this link first": the person did not go on
                    raise
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--protocol", choices=("auto", "legacy"), default="auto")
    parser.add_argument("url")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.url, args.protocol))
