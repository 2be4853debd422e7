"""The README's server quick start: a tool that asks, one that confirms, one that takes a
secret on the server's own page. Serves stdio.

    mcp-elicit connect -- python examples/server_quickstart.py
"""

from dataclasses import dataclass
from datetime import date

from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.server import Accepted, Elicitation, ask, confirm, secret

elicitation = Elicitation()  # key: MCP_ELICIT_KEY or a key file; store: SQLite
server = MCPServer("hotel", **elicitation.server_options())


@dataclass
class Stay:
    guest: str
    arrival: date
    nights: int = 1


@server.tool()
async def book(ctx: Context) -> str:
    match await ask(ctx, Stay, "Who is staying, and when?"):
        case Accepted(stay):
            return f"Booked {stay.nights} night(s) from {stay.arrival} for {stay.guest}."
        case other:
            return f"Nothing booked ({other})."


@server.tool()
async def cancel(ctx: Context) -> str:
    return "Cancelled." if await confirm(ctx, "Cancel? This cannot be undone.") else "Kept."


@server.tool()
async def connect_weather(ctx: Context) -> str:
    # The person types the key on this server's own page: it never passes through the client.
    match await secret(ctx, "WEATHER_API_KEY", "Your weather service key"):
        case Accepted(key):
            return f"Connected ({len(key.get_secret_value())} characters)."
        case other:
            return f"Not connected ({other})."


if __name__ == "__main__":
    elicitation.run(server)  # stdio; (server, "streamable-http") too; serves the hosted pages
