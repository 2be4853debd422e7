"""A deliberately broken server, on the official SDK alone: it sends every completion notice
to every session it has seen, not only to the one that started the elicitation (the rule
``server-complete-notice-origin-only`` checks). Otherwise it does URL mode the SDK's way.

    .venv/bin/python tests/peer_servers/broadcast_server.py --http PORT
"""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("broadcast-server", log_level="WARNING")
SESSIONS: list[Any] = []


@server.tool()
async def test_url_elicitation(ctx: Context) -> str:
    """One URL-mode question; the interaction counts as done once accepted."""
    if ctx.session not in SESSIONS:
        SESSIONS.append(ctx.session)
    elicitation_id = uuid.uuid4().hex
    result = await ctx.elicit_url("Open the check page.", "https://check.example/", elicitation_id)
    for session in SESSIONS:  # the bug: everyone hears of it
        await session.send_elicit_complete(elicitation_id)
    return f"URL elicitation: {result.action}"


@server.tool()
async def hello(ctx: Context) -> str:
    """Any other call: the session is remembered, as a server keeping sessions would."""
    if ctx.session not in SESSIONS:
        SESSIONS.append(ctx.session)
    return "hello"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", required=True)
    server.run("streamable-http", port=parser.parse_args().http)


if __name__ == "__main__":
    main()
