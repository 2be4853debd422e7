"""How many open flows one user may have on one server.

The attack (issue 13, break 5): a tool calling ``secret_required`` in a loop started a new
flow each time, without limit: every one a row in the store and a link for the client. Open
(pending or opened) flows are now capped per server and user (``Elicitation(max_open_flows=)``,
20 by default); past the cap the tool fails with an error that names the limit.
"""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.flows import DEFAULT_MAX_OPEN_FLOWS, FlowStatus
from mcp_elicit.server import DeploymentKey, Elicitation, secret, secret_required
from mcp_elicit.server.identity import LOCAL_USER
from mcp_elicit.testing import connect

pytestmark = pytest.mark.anyio

TIMEOUT = 60.0


def looping_server(**options: object) -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://", **options)  # type: ignore[arg-type]
    server = MCPServer("looping", **elicitation.server_options())

    @server.tool()
    async def ask_for_many(count: int, ctx: Context) -> str:
        links = [await secret_required(ctx, f"KEY_{i}", "One more key") for i in range(count)]
        return f"{len(links)} links"

    @server.tool()
    async def one_more_secret(ctx: Context) -> str:
        return str(await secret(ctx, "ONE_MORE", "One more key", timeout=0.5))

    return server, elicitation


async def open_flows(elicitation: Elicitation) -> int:
    await elicitation.flows.sweep()
    store = elicitation.store
    flows = store._flows  # type: ignore[attr-defined]  # the memory engine's: read only
    return sum(1 for f in flows.values() if f.status in (FlowStatus.PENDING, FlowStatus.OPENED))


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_tool_asking_in_a_loop_is_stopped_at_the_limit(protocol: str) -> None:
    server, elicitation = looping_server()
    assert DEFAULT_MAX_OPEN_FLOWS == 20
    with anyio.fail_after(TIMEOUT):
        async with connect(server, protocol=protocol, elicitation=elicitation) as mcp:
            allowed = await mcp.call("ask_for_many", {"count": DEFAULT_MAX_OPEN_FLOWS})
            assert allowed.text == f"{DEFAULT_MAX_OPEN_FLOWS} links"
            refused = await mcp.call("ask_for_many", {"count": 1000})
            blocking = await mcp.call("one_more_secret")
    assert refused.is_error and blocking.is_error
    for result in (refused, blocking):
        assert "20 open" in result.text and "max_open_flows" in result.text, result.text
    assert await open_flows(elicitation) == DEFAULT_MAX_OPEN_FLOWS


async def test_the_limit_is_set_on_elicitation_and_finished_flows_make_room() -> None:
    server, elicitation = looping_server(max_open_flows=3)
    with anyio.fail_after(TIMEOUT):
        async with connect(server, protocol="2025-11-25", elicitation=elicitation) as mcp:
            refused = await mcp.call("ask_for_many", {"count": 4})
            assert refused.is_error and "3 open" in refused.text
            assert await open_flows(elicitation) == 3
            # The person declines one of them: one more may be asked for.
            flows = elicitation.store._flows  # type: ignore[attr-defined]
            first = next(iter(flows))
            await elicitation.flows.decline(first, user=LOCAL_USER)
            again = await mcp.call("ask_for_many", {"count": 1})
            assert again.text == "1 links"
            assert (await mcp.call("ask_for_many", {"count": 1})).is_error


def test_the_limit_is_checked() -> None:
    for bad in (0, -1):
        with pytest.raises(ValueError, match="max_open_flows"):
            Elicitation(key=DeploymentKey.generate(), store="memory://", max_open_flows=bad)
