"""A tool that raises ``UrlRequired`` (here through ``secret_required``), in process on an
``MCPServer``: what the client gets on each revision, and how the call ends when the person
will not open the link."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit.server import DeploymentKey, Elicitation, secret_required, stored_secret
from mcp_elicit.testing import connect, enter_secret

pytestmark = pytest.mark.anyio


def build() -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://", url_resume_wait=10.0)
    server = MCPServer("sync-desk", **elicitation.server_options())

    @server.tool()
    async def sync(ctx: Context) -> str:
        key = await stored_secret(ctx, "SYNC_KEY")
        if key is None:
            raise await secret_required(ctx, "SYNC_KEY", "Your sync key, to sync files")
        return "synced"

    return server, elicitation


@pytest.mark.parametrize(("answer", "said"), [("decline", "declined"), ("cancel", "did not open")])
async def test_on_2026_07_28_a_refused_link_ends_the_call_instead_of_asking_again(
    answer: str, said: str
) -> None:
    server, elicitation = build()
    with anyio.fail_after(10):
        async with connect(
            server, protocol="2026-07-28", answers=[{"action": answer}], elicitation=elicitation
        ) as mcp:
            result = await mcp.call("sync")
    assert result.is_error
    assert (
        result.text == f"The person {said} the link this tool needs: Your sync key, to sync files"
    )
    assert [q.mode for q in mcp.asked] == ["url"]  # asked once, not again and again


async def test_on_2026_07_28_an_accepted_link_is_held_until_the_page_is_done() -> None:
    server, elicitation = build()
    with anyio.fail_after(10):
        async with connect(
            server,
            protocol="2026-07-28",
            answers=[{"action": "accept"}],
            links=enter_secret("sk-1"),
            elicitation=elicitation,
        ) as mcp:
            assert (await mcp.call("sync")).text == "synced"
    assert len(mcp.asked) == 1


async def test_on_2025_11_25_a_declined_link_leaves_the_32042_with_the_caller() -> None:
    server, elicitation = build()
    async with connect(
        server, protocol="2025-11-25", answers=[{"action": "decline"}], elicitation=elicitation
    ) as mcp:
        with pytest.raises(MCPError) as raised:
            await mcp.call("sync")
    assert raised.value.code == -32042
