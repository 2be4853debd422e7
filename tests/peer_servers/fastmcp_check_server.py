"""fastmcp's server with the tools ``mcp-elicit check server`` calls, written the way
fastmcp's documentation shows (``ctx.elicit(message, response_type=...)``), without
mcp-elicit: a column of the compatibility matrix (docs/compatibility.md). fastmcp has no
URL-mode API, so the URL-mode tools are not listed (those checks are skipped).

    .venv/bin/python tests/peer_servers/fastmcp_check_server.py --http PORT
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

from fastmcp import Context, FastMCP
from pydantic import EmailStr

server = FastMCP("fastmcp-check")


@dataclass
class UserInfo:
    username: str
    email: EmailStr


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks for a username and an email address."""
    result = await ctx.elicit(message, response_type=UserInfo)
    return f"User response: {result}"


@dataclass
class Enums:
    untitled_single: Literal["option1", "option2", "option3"]


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks an enum, then a titled multi-select (fastmcp's list-of-dicts spelling)."""
    first = await ctx.elicit("Please pick an option", response_type=Enums)
    second = await ctx.elicit(
        "Please pick some options",
        response_type=[{"value1": {"title": "First Choice"}, "value2": {"title": "Second"}}],
    )
    return f"Elicitation completed: {first} {second}"


@dataclass
class Name:
    name: str


@server.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks a name (on 2026-07-28 as fastmcp does it, if it does)."""
    result = await ctx.elicit("What is your name?", response_type=Name)
    return f"Hello: {result}"


@dataclass
class Confirm:
    ok: bool


@server.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Asks for a confirmation."""
    result = await ctx.elicit("Please confirm", response_type=Confirm)
    return f"state-ok: {result}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", required=True)
    args = parser.parse_args()
    server.run("http", host="127.0.0.1", port=args.http, show_banner=False)


if __name__ == "__main__":
    main()
