"""A push-era server's -32042 (links required before a call) through the gateway, in-process:
each link is written in the audit log whichever way it is bridged (to a 2026-07-28 client as
a URL-mode input request, answered by its retry; to a 2025-11-25 client as the error, which
it answers itself), as is a link asked as a question between every pair of eras; and a
2026-07-28 person's "done" makes the gateway call the server again at once when the server
sends no completion notice (``mcp_elicit.gateway.push_to_rounds``,
``mcp_elicit.gateway.links.LinkRetries``)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

from mcp_elicit.client import (
    Accept,
    AuditLog,
    Decision,
    ElicitationHandler,
    ElicitingClient,
    FormPrompt,
    Notice,
    UrlPrompt,
)
from mcp_elicit.client.audit import redact_url
from mcp_elicit.gateway import Gateway, Safeguards
from tests.gateway.asking_support import SAFE_LINK, call_through_audited_gateway
from tests.server_support import Person, text

pytestmark = pytest.mark.anyio

LINK = "https://pages.example.com/connect/9f3c1a7e?state=x1"


class LinkServer:
    """``needs_link`` fails with -32042 for :data:`LINK` (id ``e1``) the first time, and
    returns ``"linked"`` after; ``notify``: the server says ``e1`` is complete as it refuses
    (a server may never say so). ``events`` records each call."""

    def __init__(self, events: list[str], *, notify: bool) -> None:
        self.server = MCPServer("needs-links")

        @self.server.tool()
        async def needs_link(ctx: Context) -> str:
            events.append("call")
            if events.count("call") > 1:
                return "linked"
            if notify:
                await ctx.request_context.session.send_elicit_complete("e1")
            link = ElicitRequestURLParams(message="Connect first.", url=LINK, elicitation_id="e1")
            raise UrlElicitationRequiredError([link])


def audit_lines(sink: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in sink.getvalue().splitlines()]


async def test_a_link_bridged_to_a_2026_client_is_audited_with_its_answer() -> None:
    events: list[str] = []
    made = LinkServer(events, notify=True)
    sink = io.StringIO()
    seen: list[dict[str, Any]] = []

    async def person(context: Any, params: Any) -> types.ElicitResult:
        seen.append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
        return types.ElicitResult(action="accept")

    with anyio.fail_after(20):
        async with (
            Gateway(
                made.server,
                upstream_protocol="2025-11-25",
                safeguards=Safeguards(audit=AuditLog(sink)),
                link_wait=600.0,  # the notice ends the wait, never this
            ) as gateway,
            Client(gateway.server, elicitation_callback=person, mode="auto") as client,
        ):
            result = await client.call_tool("needs_link", {})
    assert text(result) == "linked" and events == ["call", "call"]
    assert [s["url"] for s in seen] == [LINK]  # the person was shown the link whole
    [line] = audit_lines(sink)
    assert line == {
        "time": line["time"],
        "by": "gateway",
        "mode": "url",
        "message": "Connect first.",
        "url": redact_url(LINK),
        "action": "accept",
        "content": None,
        "required": True,
    }
    assert "9f3c1a7e" not in sink.getvalue()  # the link is redacted, as every other line's


async def test_a_link_passed_on_to_a_2025_client_is_audited_as_passed_on() -> None:
    made = LinkServer([], notify=False)
    sink = io.StringIO()
    with anyio.fail_after(20):
        async with (
            Gateway(
                made.server,
                upstream_protocol="2025-11-25",
                safeguards=Safeguards(audit=AuditLog(sink)),
            ) as gateway,
            Client(gateway.server, elicitation_callback=_unused, mode="legacy") as client,
        ):
            with pytest.raises(MCPError) as raised:
                await client.call_tool("needs_link", {})
    assert raised.value.error.code == -32042  # the client answers the server itself
    [line] = audit_lines(sink)
    assert (line["by"], line["mode"], line["message"]) == ("gateway", "url", "Connect first.")
    assert (line["url"], line["action"], line["required"]) == (redact_url(LINK), "passed-on", True)


async def _unused(context: Any, params: Any) -> types.ElicitResult:
    raise AssertionError("a -32042 is not a question")


class PressesDone:
    """A 2026-07-28 person: accepts the link, then, on the waiting screen, says they are done
    once ``held()`` (the gateway holds the retry), unless the call ends first."""

    def __init__(self, events: list[str], held: Callable[[], bool]) -> None:
        self.events = events
        self.held = held

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        return Accept()

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        while not completed.is_set():
            if self.held():
                self.events.append("done")
                return Accept()
            await anyio.sleep(0.01)
        return Accept()

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        raise AssertionError("no form expected")

    async def link_not_opened(self, prompt: UrlPrompt, why: str) -> Decision:
        return Accept()

    async def notify(self, notice: Notice) -> None:
        pass


async def test_done_with_a_link_calls_the_server_again_now_when_it_sends_no_notice() -> None:
    events: list[str] = []
    made = LinkServer(events, notify=False)  # like server-everything: no completion notice
    # --link-wait far beyond the test's own bound: only the person's "done" can end the wait.
    with anyio.fail_after(30):
        async with Gateway(made.server, upstream_protocol="2025-11-25", link_wait=600.0) as gw:
            person = PressesDone(events, held=lambda: gw.links.retries.waiting > 0)
            handler = ElicitationHandler(person, opener=lambda url: True)
            async with ElicitingClient(gw.server, handler, protocol="2026-07-28") as client:
                result = await client.call_tool("needs_link", {})
    assert text(result) == "linked" and not result.is_error
    assert events == ["call", "done", "call"]  # called again once, after the person's word
    assert gw.links.retries.waiting == 0


@pytest.mark.parametrize("client_era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("upstream_era", ["2025-11-25", "2026-07-28"])
async def test_a_link_asked_as_a_question_is_audited_between_every_pair_of_eras(
    upstream_era: str, client_era: str
) -> None:
    person = Person([{"action": "accept"}])
    _, result, lines = await call_through_audited_gateway(
        "open_page", upstream_era, client_era, person
    )
    assert not result.is_error and [seen["url"] for seen in person.seen] == [SAFE_LINK]
    [line] = lines
    assert (line["by"], line["mode"], line["message"]) == ("gateway", "url", "Connect your account")
    assert (line["url"], line["action"]) == (redact_url(SAFE_LINK), "accept")
    assert "required" not in line  # a question, not a -32042's link
