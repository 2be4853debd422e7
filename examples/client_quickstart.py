"""Answer a server's elicitations from Python: start a server, call a tool, answer its form.

The answers here come from a list (ScriptedRenderer); a host with a person uses
TerminalRenderer, or its own Renderer, in the same place.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp_elicit.client import ElicitationHandler, ElicitingClient, ScriptedRenderer

SERVER = StdioServerParameters(
    command=sys.executable, args=[str(Path(__file__).with_name("booking_server.py"))]
)


async def main() -> None:
    answers = [
        {"action": "accept", "content": {"name": "Ada"}, "defaults": True},  # the form
        {"action": "decline"},  # the second time
    ]
    handler = ElicitationHandler(ScriptedRenderer(answers))
    for protocol in ("2025-11-25", "2026-07-28"):
        async with ElicitingClient(SERVER, handler, protocol=protocol) as client:
            result = await client.call_tool("book_table")
            print(protocol, result.content[0].text)  # type: ignore[union-attr]
    print("answers left:", handler.renderer.remaining)  # type: ignore[union-attr]


if __name__ == "__main__":
    anyio.run(main)
