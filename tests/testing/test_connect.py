"""``mcp_elicit.testing.connect``: what a test of a server relies on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import load_answers
from mcp_elicit.server import Accepted, DeploymentKey, Elicitation, ask, secret
from mcp_elicit.testing import connect, enter_secret

pytestmark = pytest.mark.anyio


def shop() -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://")
    server = MCPServer("shop", **elicitation.server_options())

    @server.tool()
    async def connect_shop(ctx: Context) -> str:
        match await secret(ctx, "SHOP_KEY", "Your shop API key", reuse=False):
            case Accepted(key):
                return f"Connected ({len(key.get_secret_value())} characters)."
            case other:
                return f"Not connected ({other})."

    @server.tool()
    async def greet(ctx: Context) -> str:
        answer = await ask(
            ctx, {"type": "object", "properties": {"name": {"type": "string"}}}, "Name?"
        )
        return f"Hello, {answer.value['name']}." if isinstance(answer, Accepted) else "Hello."

    return server, elicitation


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_one_elicitation_serves_its_pages_again_in_each_session(protocol: str) -> None:
    """The pages' port belongs to the session that served them: the next session's links
    lead to its own (they once led to the closed port of the first)."""
    server, elicitation = shop()
    links: list[str] = []
    for value in ("first-key", "second-key-longer"):
        async with connect(
            server,
            protocol=protocol,
            answers=[{"action": "accept"}],
            links=enter_secret(value),
            elicitation=elicitation,
        ) as mcp:
            result = await mcp.call("connect_shop")
            links.extend(mcp.opened)
        assert result.text == f"Connected ({len(value)} characters).", result.text
    assert len(links) == 2 and links[0].split("/elicit/")[0] != links[1].split("/elicit/")[0]


async def test_answers_may_come_from_an_answers_file(tmp_path: Path) -> None:
    file = tmp_path / "answers.json"
    file.write_text(json.dumps([{"action": "accept", "content": {"name": "Ada"}}]))
    server, _ = shop()
    async with connect(server, answers=load_answers(file)) as mcp:
        result = await mcp.call("greet")
    assert result.text == "Hello, Ada."
