"""A server that uses none of the heavy optional parts does not load them: they cost start-up
time (issue 31: an instance took 20 s to listen on a busy machine) and bring nothing.

The server is the README's quick start (``Elicitation()`` with its defaults, a tool that asks
with a dataclass), run over Streamable HTTP as a process of its own; after it has answered a
client, one of its tools says which modules are loaded. ``bench/bench_server_startup.py``
(benchmark 20) measures what the laziness buys.
"""

from __future__ import annotations

import json
import sys
from importlib.util import find_spec
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.served import Served

pytestmark = pytest.mark.slow  # a server process of its own

SERVER = """\
import json
import sys
from dataclasses import dataclass
from datetime import date

from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.server import Accepted, Elicitation, ask

elicitation = Elicitation()
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
            return f"Booked {stay.guest}."
        case other:
            return f"Nothing booked ({other})."


@server.tool()
async def loaded() -> str:
    return json.dumps(sorted(sys.modules))


elicitation.run(server, "streamable-http", port=int(sys.argv[1]))
"""

# What a server loads only when it uses it: the terminal and browser hosts' parts, the stores
# it was not given, the frameworks and extras, the OpenTelemetry SDK (the API is the SDK's
# own), Babel (a person's language, first needed by a translated message), and the format
# and pattern checkers (email-validator, rfc3986-validator, RE2: first needed by a field
# that has that format, or a pattern).
NOT_LOADED = (
    "prompt_toolkit",
    "playwright",
    "asyncpg",
    "psycopg",
    "redis",
    "fastmcp",
    "authlib",
    "joserfc",
    "pydantic_ai",
    "langchain",
    "google.adk",
    "opentelemetry.sdk",
    "babel",
    "email_validator",
    "rfc3986_validator",
    "re2",
    "mcp_elicit.client",
    "mcp_elicit.server.oauth",
)


def test_every_pinned_module_is_installed() -> None:
    # Otherwise the test below would pass for a module that could not have loaded anyway.
    assert [name for name in NOT_LOADED if find_spec(name) is None] == []


def test_a_basic_server_loads_no_optional_part(tmp_path: Path) -> None:
    script = tmp_path / "hotel.py"
    script.write_text(SERVER, encoding="utf-8")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "MCP_ELICIT_KEY": "11" * 32}
    served = Served(
        lambda port: [sys.executable, str(script), str(port)], log=tmp_path / "log", env=env
    )
    try:

        async def modules() -> list[str]:
            async with Client(served.url()) as client:
                listed = await client.list_tools()
                assert {tool.name for tool in listed.tools} == {"book", "loaded"}
                result = await client.call_tool("loaded", {})
                return list(json.loads(result.content[0].text))  # type: ignore[union-attr]

        loaded = anyio.run(modules)
    finally:
        served.stop()
    assert "mcp_elicit.server" in loaded, served.output()
    assert [name for name in loaded if _within(name, NOT_LOADED)] == []


def _within(name: str, packages: tuple[str, ...]) -> bool:
    """``name`` is one of ``packages`` or a module inside one (``redis.client``, not
    ``redistools``)."""
    return any(name == package or name.startswith(f"{package}.") for package in packages)
