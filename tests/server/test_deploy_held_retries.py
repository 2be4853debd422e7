"""2026-07-28: the retry that follows "I opened the link" is held while the person is on the
page, and only ``max_held_retries`` of them at once. Past the cap a retry is answered at once
with the link asked for again (what an unfinished page gets), and that is logged once."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.flows import Flows
from mcp_elicit.server import DeploymentKey, Elicitation, secret_required, stored_secret
from mcp_elicit.server.completions import DEFAULT_MAX_HELD, Completions
from mcp_elicit.server.identity import LOCAL_USER
from mcp_elicit.stores import MemoryStore

pytestmark = pytest.mark.anyio

LOGGER = "mcp_elicit.server.completions"


def build(max_held_retries: int) -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(
        key=DeploymentKey.generate(),
        store="memory://",
        public_url="http://127.0.0.1:9",
        url_resume_wait=30.0,
        max_held_retries=max_held_retries,
    )
    server = MCPServer("sync-desk", **elicitation.server_options())

    @server.tool()
    async def sync(ctx: Context) -> str:
        if await stored_secret(ctx, "SYNC_KEY") is None:
            raise await secret_required(ctx, "SYNC_KEY", "Your sync key, to sync files")
        return "synced"

    return server, elicitation


async def _never(context: Any, params: Any) -> Any:
    raise AssertionError("these tests answer by hand")


async def linked(client: Client) -> tuple[types.InputRequiredResult, str, str]:
    """A first call: the input request, its key, and the link it asks the person to open."""
    first = await client.session.call_tool("sync", {}, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert first.input_requests is not None
    ((key, request),) = first.input_requests.items()
    assert isinstance(request, types.ElicitRequest)
    assert isinstance(request.params, types.ElicitRequestURLParams)
    return first, key, request.params.url


async def opened(client: Client, first: types.InputRequiredResult, key: str) -> Any:
    """The retry a client sends once the person agreed to open the link."""
    return await client.session.call_tool(
        "sync",
        {},
        allow_input_required=True,
        input_responses={key: types.ElicitResult(action="accept")},
        request_state=first.request_state,
    )


async def until(condition: Any, seconds: float = 5.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.01)


async def test_retries_past_the_cap_get_the_link_again_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The attack: many retries after "I opened the link", none of whose pages is ever done,
    # each pinning a request for url_resume_wait (30 s here). Only the first is held.
    server, elicitation = build(max_held_retries=1)
    completions = elicitation.runtime.completions
    held: list[Any] = []
    with caplog.at_level(logging.DEBUG, logger=LOGGER), anyio.fail_after(20):
        async with (
            elicitation.running(close_store=False),
            Client(server, elicitation_callback=_never) as client,
        ):
            calls = [await linked(client) for _ in range(4)]
            assert len({url for _, _, url in calls}) == 4, "one flow per call"
            async with anyio.create_task_group() as tasks:

                async def hold_first() -> None:
                    held.append(await opened(client, calls[0][0], calls[0][1]))

                tasks.start_soon(hold_first)
                await until(lambda: completions.held == 1)
                for first, key, url in calls[1:]:
                    # Answered at once (well inside the 30 s wait): the same link again.
                    with anyio.fail_after(5):
                        again = await opened(client, first, key)
                    assert isinstance(again, types.InputRequiredResult), again
                    assert again.input_requests is not None
                    ((_, request),) = again.input_requests.items()
                    assert isinstance(request.params, types.ElicitRequestURLParams)
                    assert request.params.url == url
                assert completions.held == 1 and held == [], "the first is still held"
                assert completions.not_held == 3
                # The person finishes the first page: its held retry gets the tool's result.
                flow_id = calls[0][2].rsplit("/", 1)[-1]
                await elicitation.vault.put(LOCAL_USER, "SYNC_KEY", "sk-1")
                await elicitation.flows.complete(flow_id, user=LOCAL_USER)
            (done,) = held
            assert isinstance(done, types.CallToolResult), done
            assert done.content[0].text == "synced"  # type: ignore[union-attr]
            assert completions.held == 0
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    said = warnings[0].getMessage()
    assert "max_held_retries" in said and "not held" in said
    assert sum("not held" in r.getMessage() for r in caplog.records) == 3  # the rest at DEBUG


async def test_under_the_cap_every_retry_is_held() -> None:
    flows = Flows(MemoryStore())
    completions = Completions(lambda: flows, url_resume_wait=30.0, max_held=3)
    started = [await flows.start(user="u", purpose="secret") for _ in range(3)]
    results: list[Any] = []
    async with anyio.create_task_group() as tasks:
        for flow in started:
            tasks.start_soon(lambda f=flow: _append(results, completions.hold(f)))
        await until(lambda: completions.held == 3)
        for flow in started:
            await flows.complete(flow.id, user="u")
    assert sorted(r.status.value for r in results) == ["completed"] * 3
    assert completions.held == 0 and completions.not_held == 0


async def _append(results: list[Any], awaitable: Any) -> None:
    results.append(await awaitable)


async def test_a_cap_of_zero_holds_nothing() -> None:
    flows = Flows(MemoryStore())
    completions = Completions(lambda: flows, url_resume_wait=30.0, max_held=0)
    flow = await flows.start(user="u", purpose="secret")
    with anyio.fail_after(1):
        assert (await completions.hold(flow)).status.value == "pending"
    assert completions.not_held == 1


def test_the_cap_is_set_through_elicitation() -> None:
    _, elicitation = build(max_held_retries=7)
    assert elicitation.runtime.completions.max_held == 7
    _, default = build(max_held_retries=DEFAULT_MAX_HELD)
    assert default.runtime.completions.max_held == 1000
    with pytest.raises(ValueError, match="max_held_retries must be 0 or more"):
        build(max_held_retries=-1)
