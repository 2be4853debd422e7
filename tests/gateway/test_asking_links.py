"""A push-era server's -32042 (links required before a call) through a gateway that asks the
person itself (``Gateway(ask=...)``), for a host that cannot be given links: the gateway's
person is taken through them by the client's own path (``client/required_links.py``), and the
host gets the result, never the error. In-process; the person is a scripted renderer."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.abc
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

from mcp_elicit.gateway import Gateway
from mcp_elicit.gateway.asking_here import LINKS_NOT_OPENED
from mcp_elicit.gateway.limits import Limits
from tests.gateway.asking_support import SAFE_LINK, GatewayPerson
from tests.server_support import SDK_MODES, text

pytestmark = pytest.mark.anyio

ERAS = ["2025-11-25", "2026-07-28"]


class LinkServer:
    """``needs_link`` fails with -32042 for :data:`SAFE_LINK` (id ``e1``) until the server has
    said ``e1`` is complete (:meth:`complete`, on the session that asked)."""

    def __init__(self) -> None:
        self.server = MCPServer("needs-links")
        self.calls = 0
        self.completed = False
        self.session: Any = None

        @self.server.tool()
        async def needs_link(ctx: Context) -> str:
            self.calls += 1
            if self.completed:
                return "linked"
            self.session = ctx.request_context.session
            raise UrlElicitationRequiredError(
                [
                    ElicitRequestURLParams(
                        message="Connect first.", url=SAFE_LINK, elicitation_id="e1"
                    )
                ]
            )

    async def complete(self) -> None:
        self.completed = True
        await self.session.send_elicit_complete("e1")


async def call_through(
    made: LinkServer, person: GatewayPerson, host_era: str, **options: Any
) -> Any:
    async with (
        Gateway(made.server, upstream_protocol="2025-11-25", ask=person.handler(**options)) as gw,
        Client(gw.server, mode=SDK_MODES[host_era]) as host,
    ):
        return await host.call_tool("needs_link", {})


@pytest.mark.parametrize("host_era", ERAS)
async def test_the_gateways_person_opens_the_link_and_the_host_gets_the_result(
    host_era: str,
) -> None:
    made = LinkServer()
    async with anyio.create_task_group() as tasks:
        # The link's site finishes once it is opened: the server says so (its notice).
        person = GatewayPerson(
            [{"action": "accept"}], on_open=lambda _url: tasks.start_soon(made.complete)
        )
        # The accept stands for "done" only after 60 s: the notice is what ends the wait.
        with anyio.fail_after(20):
            result = await call_through(made, person, host_era, completion_wait=60.0)
    assert text(result) == "linked" and not result.is_error
    assert made.calls == 2  # the call made again once, after the completion
    [(asked, prompt), (opened, url)] = person.screen  # consent first, then the opening
    assert (asked, opened, url) == ("url", "opened", SAFE_LINK)
    assert prompt.message == "Connect first." and prompt.required_by == "needs_link"


@pytest.mark.parametrize("host_era", ERAS)
async def test_a_declined_link_ends_the_call_with_a_tool_error_not_the_32042(
    host_era: str,
) -> None:
    made = LinkServer()
    person = GatewayPerson([{"action": "decline"}])
    with anyio.fail_after(20):
        result = await call_through(made, person, host_era)
    assert result.is_error and text(result) == LINKS_NOT_OPENED
    assert made.calls == 1 and person.opened == []
    assert [kind for kind, _ in person.screen] == ["url"]


@pytest.mark.parametrize("host_era", ERAS)
async def test_more_links_than_the_gateway_allows_ends_the_call_before_the_person_sees_one(
    host_era: str,
) -> None:
    made = MCPServer("many-links")
    calls = 0

    @made.tool()
    async def needs_link() -> str:
        nonlocal calls
        calls += 1
        links = [
            ElicitRequestURLParams(message=f"Link {n}.", url=SAFE_LINK, elicitation_id=f"e{n}")
            for n in range(3)
        ]
        raise UrlElicitationRequiredError(links)

    person = GatewayPerson([{"action": "accept"}] * 3)
    with anyio.fail_after(20):
        async with (
            Gateway(
                made,
                upstream_protocol="2025-11-25",
                ask=person.handler(),
                limits=Limits(questions_per_call=2),
            ) as gateway,
            Client(gateway.server, mode=SDK_MODES[host_era]) as host,
        ):
            with pytest.raises(MCPError) as ended:
                await host.call_tool("needs_link", {})
    assert "questions_per_call" in ended.value.error.message
    assert calls == 1 and person.screen == [] and person.opened == []
