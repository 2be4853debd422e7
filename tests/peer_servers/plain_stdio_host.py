"""A host on the plain Python SDK that declares no elicitation (like the OpenAI Agents SDK):
it starts a server over stdio the SDK's way (its own session, no controlling terminal, the
host's stderr passed on), calls one tool, and prints what came back.

    python tests/peer_servers/plain_stdio_host.py [--protocol legacy|auto] TOOL -- COMMAND...

For the gateway's ``--ask`` tests (tests/gateway/test_asking_end_to_end.py): run as
``mcp-elicit gateway --ask terminal|web -- SERVER``, the gateway asks its person itself.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(tool: str, command: list[str], mode: str) -> int:
    # The whole environment: the gateway needs BROWSER, XDG_STATE_HOME (the SDK passes few).
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with Client(server, mode=mode) as host:  # no elicitation_callback: none declared
        result = await host.call_tool(tool, {})
    text = " ".join(getattr(part, "text", "") for part in result.content)
    print(f"host got: {text}" + (" (tool error)" if result.is_error else ""), flush=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", choices=["legacy", "auto"], default="legacy")
    parser.add_argument("tool")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    sys.exit(anyio.run(main, args.tool, command, args.protocol))
