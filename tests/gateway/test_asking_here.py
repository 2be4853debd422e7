"""A gateway that asks the person itself (``Gateway(ask=...)``, ``mcp-elicit gateway --ask``)
for a host that declares no elicitation: a plain SDK client, in front of our server on each
era, in-process; the gateway's person is a scripted renderer whose screen is recorded."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client

from mcp_elicit.gateway import Gateway
from mcp_elicit.urls import Verdict
from tests.gateway.asking_support import BLOCKED_LINK, SAFE_LINK, GatewayPerson, asking_server
from tests.gateway.support import CLI
from tests.server_support import SDK_MODES, Person, connect, text

pytestmark = pytest.mark.anyio

ERAS = ["2025-11-25", "2026-07-28"]


@asynccontextmanager
async def host_without_elicitation(
    upstream_era: str, host_era: str, person: GatewayPerson | None, **options: Any
) -> AsyncIterator[Client]:
    """A plain ``mcp.Client`` declaring no elicitation, through a gateway that asks
    ``person`` (no ``ask`` when ``None``)."""
    ask = person.handler() if person is not None else None
    async with (
        Gateway(asking_server(), upstream_protocol=upstream_era, ask=ask, **options) as gateway,
        Client(gateway.server, mode=SDK_MODES[host_era]) as host,
    ):
        assert host.protocol_version == host_era
        yield host


@pytest.mark.parametrize("host_era", ERAS)
@pytest.mark.parametrize("upstream_era", ERAS)
async def test_a_form_is_answered_by_the_gateways_person(upstream_era: str, host_era: str) -> None:
    person = GatewayPerson(
        [{"action": "accept", "content": {"name": "Ada", "arrival": "2031-02-03"}}]
    )
    async with host_without_elicitation(upstream_era, host_era, person) as host:
        result = await host.call_tool("book_or_walk_in", {})
    assert text(result) == "booked Ada 2031-02-03 standard x2"
    assert person.screen == [("form", "Book a room?")]


@pytest.mark.parametrize("host_era", ERAS)
@pytest.mark.parametrize("upstream_era", ERAS)
async def test_a_decline_reaches_the_tool(upstream_era: str, host_era: str) -> None:
    person = GatewayPerson([{"action": "decline"}])
    async with host_without_elicitation(upstream_era, host_era, person) as host:
        result = await host.call_tool("book", {})
    assert text(result) == "declined"


@pytest.mark.parametrize("host_era", ERAS)
@pytest.mark.parametrize("upstream_era", ERAS)
async def test_a_link_is_shown_with_its_verdict_and_opens_only_after_consent(
    upstream_era: str, host_era: str
) -> None:
    person = GatewayPerson([{"action": "accept"}])
    async with host_without_elicitation(upstream_era, host_era, person) as host:
        result = await host.call_tool("open_page", {})
    assert text(result) == "Accepted(value=None)"
    [(asked, prompt), (opened, url)] = person.screen  # consent first, then the opening
    assert (asked, opened, url) == ("url", "opened", SAFE_LINK)
    assert prompt.url == SAFE_LINK and prompt.message == "Connect your account"
    assert prompt.verdict.verdict is Verdict.ALLOW
    assert prompt.verdict.registrable_domain == "example.com"


@pytest.mark.parametrize("upstream_era", ERAS)
async def test_a_blocked_link_never_opens(upstream_era: str) -> None:
    person = GatewayPerson([{"action": "accept"}])
    async with host_without_elicitation(upstream_era, "2025-11-25", person) as host:
        result = await host.call_tool("open_bad_page", {})
    assert "Cancelled" in text(result)
    assert person.opened == []
    assert [kind for kind, _ in person.screen] == ["notice"]  # told, never asked
    assert "Blocked a link" in person.screen[0][1]
    assert BLOCKED_LINK not in str(person.screen)  # the credentials are not shown either
    assert "hunter2" not in str(person.screen) and "'admin:•••@'" in str(person.screen)


@pytest.mark.parametrize("upstream_era", ERAS)
async def test_without_ask_the_host_gets_the_servers_fallback(upstream_era: str) -> None:
    async with host_without_elicitation(upstream_era, "2025-11-25", None) as host:
        result = await host.call_tool("book_or_walk_in", {})
    assert text(result) == "booked Walk-in 2030-01-01 standard x2"


@pytest.mark.parametrize("upstream_era", ERAS)
async def test_a_host_that_declares_elicitation_is_still_asked_itself(upstream_era: str) -> None:
    person = GatewayPerson([])
    their_person = Person([{"action": "accept", "content": {"confirm": True}}])
    async with (
        Gateway(asking_server(), upstream_protocol=upstream_era, ask=person.handler()) as gateway,
        connect(gateway.server, "2025-11-25", their_person) as host,
    ):
        assert text(await host.call_tool("go_ahead", {})) == "yes"
    assert person.screen == [] and len(their_person.seen) == 1


@pytest.mark.parametrize("host_era", ERAS)
async def test_ask_always_takes_every_question_from_the_host(host_era: str) -> None:
    person = GatewayPerson([{"action": "accept", "content": {"confirm": True}}])
    their_person = Person([])
    async with (
        Gateway(
            asking_server(),
            upstream_protocol="2026-07-28",
            ask=person.handler(),
            ask_always=True,
        ) as gateway,
        connect(gateway.server, host_era, their_person) as host,
    ):
        assert text(await host.call_tool("go_ahead", {})) == "yes"
    assert person.screen == [("form", "Go ahead?")] and their_person.seen == []


def test_ask_always_needs_a_handler() -> None:
    with pytest.raises(ValueError, match="ask_always"):
        Gateway("https://tools.example.com/mcp", ask_always=True)


@pytest.mark.slow
def test_ask_terminal_with_no_terminal_is_a_usage_error() -> None:
    # As a host without a terminal starts it: a session of its own, pipes all round.
    ran = subprocess.run(
        [*CLI, "gateway", "--ask", "terminal", "--", sys.executable, "-c", "pass"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 2
    assert "--ask terminal: there is no terminal to ask on" in ran.stderr
    assert "--ask web" in ran.stderr and "Traceback" not in ran.stderr
