"""An official-SDK stdio server that writes to its stderr, as real servers' logging does, and
can crash: for the client's handling of a server's own output.

    python tests/peer_servers/noisy_server.py           # stdio; "noisy: starting" on stderr
    python tests/peer_servers/noisy_server.py --crash   # stderr, then exit 3 before any reply

Tools:
- ``greet(name)`` writes ``noisy: greeting NAME`` to stderr and returns ``Hello, NAME.``;
- ``ask`` asks one form question (a name), writing to stderr before and after it;
- ``die`` writes ``noisy: dying`` to stderr and exits 4 without answering.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field

server = MCPServer("noisy")


def log(text: str) -> None:
    print(f"noisy: {text}", file=sys.stderr, flush=True)


class Name(BaseModel):
    name: str = Field(title="Your name", min_length=1)


def _ask_name(ctx: Context) -> Elicit[Name]:
    log("asking for a name")
    return Elicit("Who are you?", Name)


@server.tool()
async def greet(name: str) -> str:
    """Greet NAME (and say so on stderr)."""
    log(f"greeting {name}")
    return f"Hello, {name}."


@server.tool()
async def ask(answer: Annotated[ElicitationResult[Name], Resolve(_ask_name)]) -> str:
    """Ask for a name with a form."""
    log(f"answered: {answer.action}")
    if isinstance(answer, AcceptedElicitation):
        return f"Hello, {answer.data.name}."
    return f"No name ({answer.action})."


@server.tool()
async def die() -> str:
    """Exit at once, without answering."""
    log("dying")
    os._exit(4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crash", action="store_true", help="fail at start, before any reply")
    args = parser.parse_args()
    log("starting")
    if args.crash:
        log("cannot start: no configuration (on purpose)")
        sys.exit(3)
    server.run()


if __name__ == "__main__":
    main()
