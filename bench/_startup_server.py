"""The server benchmark 20 starts again and again: the README's quick start, over HTTP.

    .venv/bin/python bench/_startup_server.py --http PORT          # ours: with Elicitation
    .venv/bin/python bench/_startup_server.py --http PORT --bare   # the bare SDK MCPServer

Ours is written as a newcomer writes it from ``examples/server_quickstart.py`` and the
README: ``Elicitation()`` with its defaults (the key from ``MCP_ELICIT_KEY`` or the key file,
the SQLite store in ``$XDG_STATE_HOME``), ``MCPServer(..., **elicitation.server_options())``
and ``elicitation.run(server, "streamable-http", port=PORT)``. The anchor is the official
SDK's own ``MCPServer`` with the same three tools, run with ``server.run("streamable-http",
port=PORT)``: it never imports ``mcp_elicit`` at all (the tools' bodies ask through the SDK
there), so it pays nothing of ours. The tools are never called: what is timed is getting to
the first answered request, which includes registering them (their schemas are built then).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import date
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

SERVER_NAME = "hotel"


@dataclass
class Stay:
    guest: str
    arrival: date
    nights: int = 1


def tools(elicit: Any) -> list[Any]:
    """The quick start's three tools; ``elicit``: how they ask (ours or the SDK's)."""

    async def book(ctx: Context) -> str:
        return f"Booked: {await elicit.ask(ctx, Stay, 'Who is staying, and when?')}"

    async def cancel(ctx: Context) -> str:
        return f"Cancelled: {await elicit.confirm(ctx, 'Cancel? This cannot be undone.')}"

    async def connect_weather(ctx: Context) -> str:
        return f"Connected: {await elicit.secret(ctx, 'WEATHER_API_KEY', 'Your weather key')}"

    return [book, cancel, connect_weather]


class _SdkAsking:
    """The bare server's way to ask: the SDK's ``ctx.elicit`` (never called by the bench)."""

    @staticmethod
    async def ask(ctx: Context, model: Any, message: str) -> object:
        return await ctx.elicit(message, model)

    @staticmethod
    async def confirm(ctx: Context, message: str) -> object:
        return await ctx.elicit(message, Stay)

    @staticmethod
    async def secret(ctx: Context, name: str, message: str) -> object:
        return await ctx.elicit_url(message, f"https://example.com/{name}", name)


def serve_bare(port: int) -> None:
    server = MCPServer(SERVER_NAME)
    for tool in tools(_SdkAsking):
        server.tool()(tool)
    server.run("streamable-http", port=port)


def serve_ours(port: int) -> None:
    import mcp_elicit.server as elicit
    from mcp_elicit.server import Elicitation

    elicitation = Elicitation()
    server = MCPServer(SERVER_NAME, **elicitation.server_options())
    for tool in tools(elicit):
        server.tool()(tool)
    elicitation.run(server, "streamable-http", port=port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", required=True)
    parser.add_argument("--bare", action="store_true", help="the SDK alone, no mcp_elicit")
    args = parser.parse_args()
    if args.bare:
        serve_bare(args.http)
    else:
        serve_ours(args.http)
    sys.exit(0)


if __name__ == "__main__":
    main()
