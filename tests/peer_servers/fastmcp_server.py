"""A fastmcp server that elicits, for the client's real-peer tests (stdio)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fastmcp import Context, FastMCP

server = FastMCP("fastmcp-peer")


@dataclass
class Order:
    item: str
    quantity: int
    size: Literal["small", "medium", "large"]


@server.tool
async def order(ctx: Context) -> str:
    """Order something (a dataclass form)."""
    answer = await ctx.elicit("What would you like?", response_type=Order)
    if answer.action == "accept":
        o = answer.data
        return f"ordered {o.quantity} x {o.size} {o.item}"
    return f"no order: {answer.action}"


@server.tool
async def pick_colours(ctx: Context) -> str:
    """Pick colours (a titled multi-select)."""
    answer = await ctx.elicit(
        "Which colours?", response_type=[{"r": {"title": "Red"}, "g": {"title": "Green"}}]
    )
    if answer.action == "accept":
        return "picked " + ",".join(answer.data)
    return f"no colours: {answer.action}"


@server.tool
async def confirm(ctx: Context) -> str:
    """Confirm (a scalar wrapped as {value})."""
    answer = await ctx.elicit("Delete everything?", response_type=bool)
    return f"confirm: {answer.action} {getattr(answer, 'data', None)}"


if __name__ == "__main__":
    server.run(show_banner=False)
