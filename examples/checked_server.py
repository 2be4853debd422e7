"""Your own server, checked: the quick start's hotel with the check tools of ``mcp-elicit
check server`` added when ``HOTEL_CHECK_TOOLS=1`` (never in production). docs/check.md,
"Checking your own server".

    HOTEL_CHECK_TOOLS=1 mcp-elicit check server -- python examples/checked_server.py
    HOTEL_CHECK_TOOLS=1 python examples/checked_server.py --port 8000 &
    mcp-elicit check server http://127.0.0.1:8000/mcp
"""

import argparse
import os
from dataclasses import dataclass
from datetime import date

from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.check.tools import CHECK_TASK_SUPPORT, add_check_tools
from mcp_elicit.server import Accepted, Elicitation, TaskSettings, ask

CHECKING = os.environ.get("HOTEL_CHECK_TOOLS") == "1"

# Tasks only for the check tools that need them (the task checks apply only when tasks are
# declared); your own tools run as they always did.
elicitation = Elicitation(
    tasks=TaskSettings(default="forbidden", tools=CHECK_TASK_SUPPORT) if CHECKING else False
)
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


if CHECKING:
    add_check_tools(server, elicitation)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve Streamable HTTP here (default: stdio)")
    port = parser.parse_args().port
    if port is None:
        elicitation.run(server)
    else:
        elicitation.run(server, "streamable-http", port=port)
