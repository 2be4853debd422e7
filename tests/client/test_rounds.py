"""Around tool calls: the 2026-07-28 retry loop, and retries after a required-URL error."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams, InputRequiredResult

from mcp_elicit.client import ElicitationHandler, ElicitingClient, UrlElicitationLoop
from tests.client_support import RecordingRenderer

pytestmark = pytest.mark.anyio

LINK = "https://accounts.example.com/authorize"


def rounds_server() -> MCPServer:
    server = MCPServer("rounds")
    done: set[str] = set()

    @server.tool()
    async def patient(rounds: int, ctx: Context) -> str | InputRequiredResult:
        """Answers only after `rounds` state-only rounds (a server waiting on something)."""
        seen = int(ctx.request_state or "0")
        if seen < rounds:
            return InputRequiredResult(request_state=str(seen + 1))
        return f"done after {seen} rounds"

    @server.tool()
    async def needs_link(ctx: Context) -> str:
        if "link" in done:
            return "linked"
        done.add("link")
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Authorize", url=LINK, elicitation_id="a1")]
        )

    @server.tool()
    async def always_needs_link(ctx: Context) -> str:
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Authorize", url=LINK, elicitation_id="same")]
        )

    return server


def make(answers: list[dict[str, object]]) -> ElicitationHandler:
    opened: list[str] = []
    h = ElicitationHandler(RecordingRenderer(answers), opener=opened.append)
    h.opened = opened  # type: ignore[attr-defined]
    return h


@pytest.mark.slow
async def test_more_rounds_than_the_sdk_allows_complete() -> None:
    # The SDK's own client gives up after 10 rounds; people need minutes, not rounds.
    async with ElicitingClient(rounds_server(), make([]), protocol="2026-07-28") as client:
        result = await client.call_tool("patient", {"rounds": 14})
    assert result.content[0].text == "done after 14 rounds"  # type: ignore[union-attr]


async def test_the_loop_is_bounded_in_time() -> None:
    h = make([])
    async with ElicitingClient(
        rounds_server(), h, protocol="2026-07-28", input_time_limit=0.5
    ) as client:
        with pytest.raises(TimeoutError, match=r"still asking for input after 0\.5 s"):
            await client.call_tool("patient", {"rounds": 10_000})


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_required_url_goes_through_consent_then_the_call_is_retried(
    protocol: str,
) -> None:
    h = make([{"action": "accept"}])
    async with ElicitingClient(rounds_server(), h, protocol=protocol) as client:
        h.renderer._script.completion_wait = 0.1  # type: ignore[union-attr]
        result = await client.call_tool("needs_link")
    assert result.content[0].text == "linked"  # type: ignore[union-attr]
    assert h.opened == [LINK]  # type: ignore[attr-defined]
    prompt = h.renderer.prompts[0]  # type: ignore[union-attr]
    assert prompt.required_by == "needs_link" and prompt.url == LINK


async def test_declining_a_required_url_leaves_the_error_and_opens_nothing() -> None:
    h = make([{"action": "decline"}])
    async with ElicitingClient(rounds_server(), h, protocol="2025-11-25") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("needs_link")
    assert caught.value.code == -32042
    assert h.opened == []  # type: ignore[attr-defined]


async def test_asking_again_for_a_completed_url_is_a_loop_not_a_retry_forever() -> None:
    h = make([{"action": "accept"}] * 5)
    async with ElicitingClient(rounds_server(), h, protocol="2026-07-28") as client:
        with pytest.raises(UrlElicitationLoop, match="same URL elicitation"):
            await client.call_tool("always_needs_link")
    assert len(h.renderer.prompts) == 1  # type: ignore[union-attr]


@pytest.mark.slow
async def test_the_url_drafts_required_error_is_tracked_to_completion_then_retried() -> None:
    import sys
    from pathlib import Path

    from mcp.client.stdio import StdioServerParameters

    script = Path(__file__).parent.parent / "peer_servers" / "url_draft_server.py"
    server = StdioServerParameters(command=sys.executable, args=[str(script)])
    h = make([{"action": "accept"}])
    async with ElicitingClient(server, h, protocol="2025-06-18") as client:
        result = await client.call_tool("sync")
    assert result.content[0].text == "synced"  # type: ignore[union-attr]
    assert h.opened == ["https://auth.example.com/start"]  # type: ignore[attr-defined]
    prompt = h.renderer.prompts[0]  # type: ignore[union-attr]
    assert prompt.revision == "url-draft" and prompt.elicitation_id == "d1"
    assert any("Progress" in n.text for n in h.renderer.notices)  # type: ignore[union-attr]


@pytest.mark.slow
async def test_the_url_drafts_progress_that_does_not_increase_is_not_shown() -> None:
    # The progress utility: "The progress value MUST increase with each notification", the
    # server's rule. A server that breaks it (1, 1 again, 0.5, then 2) is not believed: the
    # person sees "one" and "two", never a value that stood still or went back.
    import sys
    from pathlib import Path

    from mcp.client.stdio import StdioServerParameters

    script = Path(__file__).parent.parent / "peer_servers" / "url_draft_server.py"
    server = StdioServerParameters(command=sys.executable, args=[str(script), "--backwards"])
    h = make([{"action": "accept"}])
    async with ElicitingClient(server, h, protocol="2025-06-18") as client:
        result = await client.call_tool("sync")
    assert result.content[0].text == "synced"  # type: ignore[union-attr]
    notices = [n.text for n in h.renderer.notices if "Progress" in n.text]  # type: ignore[union-attr]
    assert notices == ["Progress: one", "Progress: two"]


async def test_a_server_that_keeps_asking_after_a_no_is_given_up_on() -> None:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult

    from mcp_elicit.client import RefusedInputLoop
    from mcp_elicit.testing import connect

    server = MCPServer("insistent")
    asked = 0

    @server.tool()
    async def insist() -> InputRequiredResult:
        nonlocal asked
        asked += 1
        params = ElicitRequestFormParams(
            message="Again?", requested_schema={"type": "object", "properties": {}}
        )
        return InputRequiredResult(input_requests={"q": ElicitRequest(params=params)})

    with anyio.fail_after(10):
        async with connect(
            server, protocol="2026-07-28", answers=[{"action": "decline"}] * 10
        ) as mcp:
            with pytest.raises(RefusedInputLoop, match="insistent kept asking"):
                await mcp.call("insist")
    assert asked == 4  # the first ask, then three declined retries; the fourth is not sent
