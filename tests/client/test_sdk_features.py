"""``ElicitingClient`` keeps every feature of the SDK client it extends: one session answers a
sampling request, a roots request and an elicitation, and passes the SDK's other arguments
on (logging, client info)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import ElicitingClient
from mcp_elicit.server import Accepted, DeploymentKey, Elicitation, ask
from mcp_elicit.testing import connect

pytestmark = pytest.mark.anyio


@dataclass
class Who:
    name: str


def server_that_samples_lists_roots_and_asks() -> MCPServer:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://")
    server = MCPServer("everything-at-once", **elicitation.server_options())

    @server.tool()
    async def all_three(ctx: Context) -> str:
        session = ctx.request_context.session
        with warnings.catch_warnings():  # sampling and roots are deprecated in 2026-07-28
            warnings.simplefilter("ignore")
            sampled = await session.create_message(
                [
                    types.SamplingMessage(
                        role="user", content=types.TextContent(type="text", text="hi")
                    )
                ],
                max_tokens=5,
            )
            roots = await session.list_roots()
        who = await ask(ctx, Who, "Who are you?")
        name = who.value.name if isinstance(who, Accepted) else "-"
        said = sampled.content.text if isinstance(sampled.content, types.TextContent) else "?"
        return f"{said} | {', '.join(str(r.uri) for r in roots.roots)} | {name}"

    @server.tool()
    async def declared(ctx: Context) -> dict[str, Any]:
        caps = ctx.request_context.session.client_capabilities
        assert caps is not None
        return caps.model_dump(mode="json", by_alias=True, exclude_none=True)

    return server


async def sample(
    context: Any, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled"), model="test"
    )


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/project")])


async def test_one_session_samples_lists_roots_and_elicits() -> None:
    server = server_that_samples_lists_roots_and_asks()
    async with connect(
        server,
        protocol="2025-11-25",
        answers=[{"action": "accept", "content": {"name": "Ada"}}],
        sampling_callback=sample,
        list_roots_callback=roots,
        client_info=types.Implementation(name="my-host", version="1.0"),
    ) as mcp:
        result = await mcp.call("all_three")
        declared = (await mcp.call("declared")).structured
    assert result.text == "sampled | file:///work/project | Ada"
    assert [q.message for q in mcp.asked] == ["Who are you?"]
    # Sampling and roots are declared because their callbacks are set; elicitation exactly as
    # the handler answers it.
    assert declared["sampling"] == {}
    assert declared["roots"] == {"listChanged": True}
    assert declared["elicitation"] == {"form": {}, "url": {}}


async def test_what_the_client_sets_itself_is_refused_with_the_reason() -> None:
    from mcp_elicit.client import ElicitationHandler

    with pytest.raises(TypeError, match="elicitation_callback"):
        ElicitingClient("http://127.0.0.1:1/mcp", ElicitationHandler(), elicitation_callback=sample)
    with pytest.raises(TypeError, match="mode"):
        ElicitingClient("http://127.0.0.1:1/mcp", ElicitationHandler(), mode="legacy")
