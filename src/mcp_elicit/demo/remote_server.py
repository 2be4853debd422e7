"""The remote demo's server: Hotel MCP over Streamable HTTP, for people who sign in.

    python -m mcp_elicit.demo.remote_server CONFIG.json

Hotel MCP's tools (:mod:`mcp_elicit.demo.hotel_server`) behind MCP authorization at "Hotel
accounts" (a local OpenID provider), with browsers signed in there too (``OidcIdentity``),
and one more tool:

- ``upcoming_events`` — "connect your calendar": downstream OAuth at "Example Calendar", a
  third party; the events are read from its API with the user's own token there, which never
  passes through the MCP client.

CONFIG (written by :mod:`mcp_elicit.demo.remote`, owner-only: it holds client secrets):
``port``, ``store``, ``key_file``, ``hotel_issuer``, ``pages_client_id``,
``pages_client_secret``, ``calendar_issuer``, ``calendar_client_id``,
``calendar_client_secret``, ``calendar_api`` (the events URL), ``calendar_audience``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.demo import hotel_server
from mcp_elicit.server import Accepted, Cancelled, Declined, DeploymentKey, Elicitation, logs
from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity, authorize, protected_resource

CALENDAR = "calendar"
CONNECT_MESSAGE = (
    "Connect your calendar at Example Calendar, so that Hotel MCP can list your upcoming "
    "events. You sign in there; your calendar token stays with Hotel MCP's server."
)


def build(config: dict[str, Any]) -> Elicitation:
    origin = f"http://127.0.0.1:{config['port']}"
    elicitation = Elicitation(
        key=DeploymentKey.load(file=config["key_file"]),
        store=config["store"],
        identity=OidcIdentity(
            config["hotel_issuer"], config["pages_client_id"], config["pages_client_secret"]
        ),
        providers=[
            OAuthProvider(
                CALENDAR,
                config["calendar_client_id"],
                config["calendar_client_secret"],
                issuer=config["calendar_issuer"],
                title="Example Calendar",
                scopes=("calendar:read", "offline_access"),
                resource=config["calendar_audience"],
            )
        ],
        public_url=origin,
    )
    hotel_server.build(
        elicitation=elicitation,
        server_options=protected_resource(config["hotel_issuer"], f"{origin}/mcp"),
    )
    api = config["calendar_api"]
    server: MCPServer = elicitation.server

    @server.tool()
    async def upcoming_events(ctx: Context) -> str:
        """Your upcoming events at Example Calendar (connects your calendar the first time)."""
        match await authorize(ctx, CALENDAR, message=CONNECT_MESSAGE):
            case Accepted(token):
                async with httpx2.AsyncClient(timeout=10) as http:
                    response = await http.get(api, headers=token.authorization())
                if response.status_code != 200:
                    return f"Example Calendar answered {response.status_code}"
                found = response.json()
                lines = [f"{e['date']}  {e['title']}" for e in found["events"]]
                return "\n".join([f"Upcoming events of {found['owner']}:", *lines])
            case Declined():
                return "Calendar not connected: you declined."
            case Cancelled(reason):
                return f"Calendar not connected: cancelled ({reason or 'by you'})."
        raise AssertionError("unreachable")  # Answer is one of the three

    return elicitation


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    logs.configure()  # before the server is built (see mcp_elicit.server.logs)
    build(config).run(transport="streamable-http", port=int(config["port"]))


if __name__ == "__main__":
    main()
