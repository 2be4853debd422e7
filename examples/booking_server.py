"""A small MCP server (official SDK) that asks questions, for trying the client side.

    python examples/booking_server.py                 # stdio
    python examples/booking_server.py --http 8765     # Streamable HTTP on 127.0.0.1:8765/mcp

Tools, each as the negotiated revision allows:
- ``book_table`` asks for a booking with a form; works on 2025-06-18, 2025-11-25 and 2026-07-28.
- ``link_account`` asks the person to open a link (URL mode): on 2025-11-25 as a request, then
  ``notifications/elicitation/complete``; on 2026-07-28 as an ``InputRequiredResult``.
- ``sync_files`` needs a link opened first: on 2025-11-25 it fails with -32042 until the
  elicitation completes, then succeeds on the retry; on 2026-07-28 (which retired -32042) it
  asks with an ``InputRequiredResult`` and succeeds on the retry that carries the answer.
- ``open_link`` asks to open whatever ``url`` it is given (to see the client's URL checks).

2025-06-18 has no URL mode: there the last three return a tool error that says so.
"""

from __future__ import annotations

import argparse
import uuid
from typing import Annotated, Literal

import anyio
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import (
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)
from pydantic import BaseModel, Field

LINK = "https://accounts.example.com/link?session=demo"
URL_MODE_SINCE = "2025-11-25"  # URL mode, and -32042, came with this revision
INPUT_REQUIRED_SINCE = "2026-07-28"  # questions ride on results; -32042 is retired

server = MCPServer("booking-demo")


class Booking(BaseModel):
    name: str = Field(title="Your name", min_length=1, max_length=40)
    guests: int = Field(2, title="Guests", ge=1, le=8)
    seating: Literal["inside", "terrace"] = Field("inside", title="Seating")


def ask_booking(ctx: Context) -> Elicit[Booking]:
    return Elicit("Book a table at Chez MCP?", Booking)


@server.tool()
async def book_table(
    booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)],
) -> str:
    """Book a table (asks for the details with a form)."""
    if isinstance(booking, AcceptedElicitation):
        b = booking.data
        return f"Booked a table for {b.guests} ({b.seating}) under {b.name}."
    return f"No booking ({booking.action})."


def _revision(ctx: Context) -> str:
    return ctx.protocol_version or ""


def _needs_url_mode(ctx: Context) -> None:
    if _revision(ctx) < URL_MODE_SINCE:
        raise ToolError(
            f"this tool asks you to open a link (URL mode), which protocol {_revision(ctx)} "
            f"does not have; connect with {URL_MODE_SINCE} or later."
        )


@server.tool()
async def link_account(ctx: Context) -> str | InputRequiredResult:
    """Link your account (asks you to open a link: URL mode)."""
    _needs_url_mode(ctx)
    return await _ask_to_open(ctx, "Link your Example account to continue.", LINK)


@server.tool()
async def open_link(url: str, ctx: Context) -> str | InputRequiredResult:
    """Ask the person to open URL (to try the client's URL safety checks)."""
    _needs_url_mode(ctx)
    return await _ask_to_open(ctx, "Please open this link.", url)


_completed: set[str] = set()


@server.tool()
async def sync_files(ctx: Context) -> str | InputRequiredResult:
    """Sync files; needs authorization first (a link to open: -32042 on 2025-11-25, an
    InputRequiredResult on 2026-07-28)."""
    _needs_url_mode(ctx)
    if _revision(ctx) >= INPUT_REQUIRED_SINCE:
        answer = (ctx.input_responses or {}).get("sync")
        if answer is None:
            # No elicitationId: this revision has none (the answer comes with the retry).
            params = ElicitRequestURLParams(message="Authorize access to your files.", url=LINK)
            return InputRequiredResult(input_requests={"sync": ElicitRequest(params=params)})
        action = answer.action if isinstance(answer, ElicitResult) else "unknown"
        if action != "accept":
            raise ToolError(f"Files not synced: authorization {action}.")
        return "Files synced."
    if "sync" in _completed:
        return "Files synced."
    elicitation_id = f"sync-{uuid.uuid4().hex[:8]}"
    session = ctx.request_context.session

    async def complete_soon() -> None:
        # Stands for the person finishing on the hosted page, and the server noticing.
        await anyio.sleep(0.2)
        await session.send_elicit_complete(elicitation_id)

    _completed.add("sync")

    _background.start_soon(complete_soon)
    raise UrlElicitationRequiredError(
        [
            ElicitRequestURLParams(
                message="Authorize access to your files.", url=LINK, elicitation_id=elicitation_id
            )
        ]
    )


async def _ask_to_open(ctx: Context, message: str, url: str) -> str | InputRequiredResult:
    if _revision(ctx) >= INPUT_REQUIRED_SINCE:
        answer = (ctx.input_responses or {}).get("link")
        if answer is None:
            params = ElicitRequestURLParams(message=message, url=url, elicitation_id="link")
            return InputRequiredResult(input_requests={"link": ElicitRequest(params=params)})
        action = answer.action if isinstance(answer, ElicitResult) else "unknown"
        return f"Link {action}."
    elicitation_id = f"link-{uuid.uuid4().hex[:8]}"
    result = await ctx.elicit_url(message, url, elicitation_id)
    if result.action == "accept":
        await ctx.request_context.session.send_elicit_complete(elicitation_id)
    return f"Link {result.action}."


_background: anyio.abc.TaskGroup


async def _serve(http_port: int | None) -> None:
    global _background
    async with anyio.create_task_group() as tasks:
        _background = tasks
        if http_port is None:
            await server.run_stdio_async()
        else:
            await server.run_streamable_http_async(port=http_port)
        tasks.cancel_scope.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    args = parser.parse_args()
    anyio.run(_serve, args.http)


if __name__ == "__main__":
    main()
