"""1,000 calls pending on questions through the gateway at once, each completing with its own
answer: every question is held until all 1,000 have been asked, then each is answered with
its call's own number. Both bridges: a 2025 server's held calls for a 2026-07-28 client, and a
2026-07-28 server's rounds pushed to a 2025-11-25 client. One client holding a thousand calls
is far past the default caps (``Limits``), so they are raised to fit."""

from __future__ import annotations

import re
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.gateway import Gateway, Limits
from mcp_elicit.server import Accepted, Elicitation, ask
from mcp_elicit.server.keys import DeploymentKey
from tests.server_support import Who

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CALLS = 1000
ASKED = re.compile(r"Who is call (\d+) for\?")
# A session per held call, and more for the lists the SDK's client fetches meanwhile.
THOUSAND = Limits(
    held_calls=CALLS,
    held_calls_per_client=CALLS,
    upstream_sessions=2 * CALLS,
    upstream_sessions_per_client=2 * CALLS,
)


def numbered_server() -> MCPServer:
    server = MCPServer("numbered")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")

    @server.tool()
    async def who(ctx: Context, n: int) -> str:
        answer = await ask(ctx, Who, f"Who is call {n} for?")
        assert isinstance(answer, Accepted)
        return f"{n}: {answer.value.name}"

    return server


@pytest.mark.parametrize(
    ("upstream_era", "sdk_mode"), [("2025-11-25", "auto"), ("2026-07-28", "legacy")]
)
async def test_a_thousand_pending_calls_each_get_their_own_answer(
    upstream_era: str, sdk_mode: str
) -> None:
    asked: list[int] = []
    everyone_asked = anyio.Event()

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        found = ASKED.fullmatch(params.message)
        assert found is not None, params.message
        asked.append(int(found.group(1)))
        if len(asked) == CALLS:
            everyone_asked.set()
        await everyone_asked.wait()  # all 1,000 pending at once
        return types.ElicitResult(action="accept", content={"name": f"Guest {found.group(1)}"})

    results: dict[int, str] = {}
    async with (
        Gateway(numbered_server(), upstream_protocol=upstream_era, limits=THOUSAND) as gateway,
        Client(gateway.server, mode=sdk_mode, elicitation_callback=answer) as client,
    ):

        async def call(n: int) -> None:
            result = await client.call_tool("who", {"n": n})
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            results[n] = block.text

        with anyio.fail_after(600):
            async with anyio.create_task_group() as tasks:
                for n in range(CALLS):
                    tasks.start_soon(call, n)
        assert len(gateway.held) == 0
    assert sorted(asked) == list(range(CALLS))
    assert results == {n: f"{n}: Guest {n}" for n in range(CALLS)}
