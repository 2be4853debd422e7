"""A fastmcp server that asks: a form, a choice, and an API key on the server's own page.

    mcp-elicit connect -- python examples/fastmcp_server.py
    python examples/fastmcp_server.py --http 8765        # Streamable HTTP on 127.0.0.1:8765/mcp

docs/fastmcp.md explains each line.
"""

import sys
from dataclasses import dataclass

from fastmcp import Context, FastMCP

from mcp_elicit.server import Accepted, Elicitation, ask, choose, secret

elicitation = Elicitation()  # key: MCP_ELICIT_KEY or a key file; store: SQLite
mcp = FastMCP("weather-desk", **elicitation.fastmcp_options())


@dataclass
class Place:
    city: str
    days: int = 3


@mcp.tool()
async def forecast(ctx: Context) -> str:
    """A forecast: where, in which units, with your weather service's key."""
    match await ask(ctx, Place, "Which city, and for how many days?"):
        case Accepted(place):
            pass
        case other:
            return f"No forecast ({other})."
    units = await choose(ctx, "Which units?", {"metric": "°C, km/h", "imperial": "°F, mph"})
    unit = units.value if isinstance(units, Accepted) else "metric"
    # The person types the key on this server's own page: it never passes through the client.
    match await secret(ctx, "WEATHER_API_KEY", "Your weather service key, to fetch forecasts"):
        case Accepted(key):
            return (
                f"{place.days}-day forecast for {place.city} in {unit} "
                f"(key of {len(key.get_secret_value())} characters)."
            )
        case other:
            return f"No forecast without a key ({other})."


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        elicitation.run(mcp, "streamable-http", port=int(sys.argv[2]))
    else:
        elicitation.run(mcp)  # stdio; the hosted pages are served on a loopback port
