"""The official Python SDK's server with the tools ``mcp-elicit check server`` calls, written
the way the SDK's documentation shows (``ctx.elicit``, ``ctx.elicit_url``,
``UrlElicitationRequiredError``, ``Resolve(Elicit)`` on 2026-07-28), without mcp-elicit: a
column of the compatibility matrix (docs/compatibility.md).

    .venv/bin/python tests/peer_servers/sdk_check_server.py            # stdio
    .venv/bin/python tests/peer_servers/sdk_check_server.py --http PORT
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from typing import Annotated, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams
from pydantic import BaseModel, EmailStr, Field

server = MCPServer("python-sdk-check", log_level="WARNING")
LINK = "https://check.invalid/done"
_FINISHING: set[asyncio.Task[None]] = set()
_OPENED: set[str] = set()  # the keys whose link was "opened"


class UserInfo(BaseModel):
    username: str = Field(description="User's response")
    email: EmailStr = Field(description="User's email address")


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks for a username and an email address."""
    result = await ctx.elicit(message=message, schema=UserInfo)
    return f"User response: {result}"


class Enums(BaseModel):
    untitled_single: Literal["option1", "option2", "option3"]
    untitled_multi: list[Literal["option1", "option2", "option3"]]


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks single and multi-select enums (the SDK has no titled options from a model)."""
    result = await ctx.elicit(message="Please pick some options", schema=Enums)
    return f"Elicitation completed: {result}"


class Name(BaseModel):
    name: str


class Confirm(BaseModel):
    ok: bool


def _name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def _confirm() -> Elicit[Confirm]:
    return Elicit("Please confirm", Confirm)


@server.tool()
async def test_input_required_result_elicitation(
    answer: Annotated[ElicitationResult[Name], Resolve(_name)],
) -> str:
    """2026-07-28: asks a name through an InputRequiredResult (the SDK's resolver)."""
    if isinstance(answer, AcceptedElicitation):
        return f"Hello, {answer.data.name}!"
    return f"No name: {answer.action}"


@server.tool()
async def test_input_required_result_request_state(
    answer: Annotated[ElicitationResult[Confirm], Resolve(_confirm)],
) -> str:
    """2026-07-28: asks for a confirmation; the SDK seals the state."""
    return f"state-ok: {answer.action}"


@server.tool()
async def test_url_elicitation(ctx: Context) -> str:
    """One URL-mode question; the interaction counts as done once accepted, so the
    completion notice follows."""
    elicitation_id = uuid.uuid4().hex
    result = await ctx.elicit_url("Open the check page.", LINK, elicitation_id)
    if result.action == "accept":
        await ctx.session.send_elicit_complete(elicitation_id)
    return f"URL elicitation: {result.action}"


@server.tool()
async def test_url_elicitation_required(key: str, ctx: Context) -> str:
    """-32042 first; the interaction completes half a second later (with the notice); then
    the same call (the same key) returns a result."""
    if key in _OPENED:
        _OPENED.discard(key)
        return "The link was opened: done."
    elicitation_id = uuid.uuid4().hex
    session = ctx.session

    async def finish() -> None:
        await asyncio.sleep(0.5)
        _OPENED.add(key)
        await session.send_elicit_complete(elicitation_id)

    task = asyncio.create_task(finish())
    _FINISHING.add(task)
    task.add_done_callback(_FINISHING.discard)
    params = ElicitRequestURLParams(
        mode="url", message="Open the check page first.", url=LINK, elicitation_id=elicitation_id
    )
    raise UrlElicitationRequiredError([params])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio")
    else:
        server.run("streamable-http", port=args.http)


if __name__ == "__main__":
    main()
