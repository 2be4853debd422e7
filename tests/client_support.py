"""Servers and renderers for the client tests (in-process, official SDK), and where the redirect
file the client hands a browser sends it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from mcp_elicit.client import (
    Accept,
    Cancel,
    Decision,
    FormPrompt,
    Notice,
    ScriptedRenderer,
    UrlPrompt,
)


class Booking(BaseModel):
    name: str = Field(title="Your name", min_length=1)
    guests: int = Field(2, ge=1, le=8)


def _ask(ctx: Context) -> Elicit[Booking]:
    return Elicit("Book a table?", Booking)


async def raw_elicit(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    """Send ``elicitation/create`` exactly as given, as a misbehaving or older server would;
    the SDK's typed API would refuse to send most of what these tests need."""
    outbound = ctx.request_context.session._connection.outbound
    try:
        return dict(await outbound.send_raw_request("elicitation/create", params, None))
    except MCPError as error:
        return {"error": error.error.model_dump(mode="json", exclude_none=True)}


def booking_server() -> MCPServer:
    """``book`` asks with a form (both eras); ``raw`` sends the params it is given (push era);
    ``caps`` returns the elicitation capability the client declared."""
    server = MCPServer("test-server")

    @server.tool()
    async def book(booking: Annotated[ElicitationResult[Booking], Resolve(_ask)]) -> str:
        if isinstance(booking, AcceptedElicitation):
            return f"booked {booking.data.name} x{booking.data.guests}"
        return f"no booking: {booking.action}"

    @server.tool()
    async def raw(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return await raw_elicit(ctx, params)

    @server.tool()
    async def flood(count: int, ctx: Context) -> list[str]:
        params = {"message": "Again?", "requestedSchema": {"type": "object", "properties": {}}}
        results = [await raw_elicit(ctx, params) for _ in range(count)]
        return [
            r.get("action", "error")
            + (f":{r['_meta']['mcp-elicit/outcome']}" if "_meta" in r else "")
            for r in results
        ]

    @server.tool()
    async def caps(ctx: Context) -> dict[str, Any]:
        declared = ctx.request_context.session.client_capabilities
        if declared is None or declared.elicitation is None:
            return {"elicitation": None}
        return {"elicitation": declared.elicitation.model_dump(mode="json", exclude_none=True)}

    @server.tool()
    async def slow(seconds: float) -> str:
        await anyio.sleep(seconds)
        return "done"

    return server


@dataclass
class RecordingRenderer:
    """A scripted renderer that remembers every prompt and notice, and can dawdle."""

    answers: list[dict[str, Any]]
    delay: float = 0.0
    prompts: list[FormPrompt | UrlPrompt] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._script = ScriptedRenderer(self.answers, completion_wait=2.0)

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        self.prompts.append(prompt)
        await anyio.sleep(self.delay)
        return await self._script.ask_form(prompt)

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        self.prompts.append(prompt)
        await anyio.sleep(self.delay)
        return await self._script.ask_url(prompt)

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        return await self._script.wait_for_completion(prompt, completed)

    async def notify(self, notice: Notice) -> None:
        self.notices.append(notice)


_REFRESH = re.compile(r'<meta http-equiv="refresh" content="0;url=([^"]*)">')


def redirect_target(path: Path) -> str:
    """Where a redirect file sends the browser."""
    found = _REFRESH.search(path.read_text(encoding="utf-8"))
    assert found is not None, path.read_text(encoding="utf-8")
    return unescape(found.group(1))


__all__ = [
    "Accept",
    "Cancel",
    "RecordingRenderer",
    "booking_server",
    "raw_elicit",
    "redirect_target",
]
