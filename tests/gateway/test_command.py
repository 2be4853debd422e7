"""``mcp-elicit gateway`` on stdio at both ends, as a host runs it: the host starts the
gateway as its server's command, and the gateway starts the server (our conformance server,
over stdio, its stderr to a log). Both bridges, with the official SDK's client as the host."""

from __future__ import annotations

import os
import sys

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.gateway.support import ROOT
from tests.server_support import Person

pytestmark = pytest.mark.slow

USER = {"username": "ada", "email": "ada@example.com"}


@pytest.mark.parametrize(
    ("upstream_era", "sdk_mode", "client_era"),
    [("2025-11-25", "auto", "2026-07-28"), ("2026-07-28", "legacy", "2025-11-25")],
)
def test_a_host_runs_the_gateway_as_its_servers_command(
    upstream_era: str, sdk_mode: str, client_era: str
) -> None:
    gateway = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_elicit",
            "gateway",
            "--upstream-protocol",
            upstream_era,
            "--",
            sys.executable,
            str(ROOT / "examples/conformance_server.py"),
            "--stdio",
        ],
        env=dict(os.environ),
        cwd=str(ROOT),
    )
    person = Person([{"action": "accept", "content": USER}])

    async def run() -> types.CallToolResult:
        async with Client(gateway, mode=sdk_mode, elicitation_callback=person.sdk_callback) as c:
            assert c.protocol_version == client_era
            assert c.server_info is not None and "via mcp-elicit gateway" in c.server_info.name
            return await c.call_tool("test_elicitation", {"message": "Who are you?"})

    result = anyio.run(run)
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert "ada@example.com" in block.text
    assert [seen["message"] for seen in person.seen] == ["Who are you?"]
