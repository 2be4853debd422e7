"""fastmcp's own ``Client`` as a host, through :mod:`mcp_elicit.integrations.fastmcp`: real
server processes it starts over stdio, a real Chromium at their hosted pages.

The README quick start's server asks with a form and takes a secret on its own page; the
secret server's ``connect_later`` fails with -32042 until the key is stored. What is checked:
the answers reach the tools, the secret never passes through the client, a link the policy
blocks never opens, "open this link first" never reaches the caller, and the audit log has
every step.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import fastmcp
import httpx2
import mcp_types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitationHandler, Policy, UrlPrompt
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient, FastMCPHandler
from mcp_elicit.protocol import ElicitationModes
from tests.client_support import RecordingRenderer
from tests.integrations.fastmcp_support import (
    STAY,
    Opener,
    PatientRenderer,
    audit_events,
    handler_for,
    quick_start,
    recorded,
    secret_server,
    text_of,
    the_booking_was_asked_and_recorded,
    type_on_page,
)

pytestmark = pytest.mark.anyio

# fastmcp's handshake era (2025-11-25), and the newest (discovered: pinning "2026-07-28" skips
# server/discover, and with it the server's name).
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(ERAS))
async def test_the_form_is_answered_and_reaches_the_tool(tmp_path: Path, mode: str) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}])
    handler, log = handler_for(renderer)
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler, mode=mode) as client:
        result = await client.call_tool("book", {})
    assert text_of(result) == "Booked 2 night(s) from 2026-12-01 for Ada."
    the_booking_was_asked_and_recorded(renderer, log)
    assert renderer.prompts[0].revision == ERAS[mode]


@pytest.mark.slow
async def test_decline_and_cancel_reach_the_tool(tmp_path: Path) -> None:
    renderer = RecordingRenderer([{"action": "decline"}, {"action": "cancel"}])
    handler, log = handler_for(renderer)
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler) as client:
        declined = await client.call_tool("book", {})
        cancelled = await client.call_tool("book", {})
    assert text_of(declined) == "Nothing booked (Declined())."
    assert text_of(cancelled).startswith("Nothing booked (Cancelled(")
    assert [e["outcome"] for e in audit_events(log)] == ["decline", "cancel"]


@pytest.mark.slow
async def test_the_person_waiting_does_not_spend_the_calls_timeout(tmp_path: Path) -> None:
    # The person takes 1.5 s; the call may take 1 s of the server's time. fastmcp's own
    # timeout would have run out while they read the form.
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}], delay=1.5)
    handler, _ = handler_for(renderer)
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler, timeout=1.0) as client:
        result = await client.call_tool("book", {})
    assert text_of(result).startswith("Booked 2 night(s)")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("mode", sorted(ERAS))
async def test_the_secret_typed_on_the_hosted_page_reaches_the_tool_not_the_client(
    tmp_path: Path, mode: str
) -> None:
    record = tmp_path / "wire"
    record.mkdir()
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"weather-{uuid.uuid4().hex}"
    transport = quick_start(tmp_path, record=record)
    async with ElicitingFastMCPClient(transport, handler, mode=mode) as client:
        assert client.local  # fastmcp started it over stdio: its loopback page is offered
        async with anyio.create_task_group() as tasks:

            async def person() -> None:
                await type_on_page(await opener.next_url(), "WEATHER_API_KEY", secret)

            tasks.start_soon(person)
            result = await client.call_tool("connect_weather", {})
    assert text_of(result) == f"Connected ({len(secret)} characters)."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.url.startswith("http://127.0.0.1:")
    assert prompt.verdict.verdict.value == "warn"  # allowed for local development, said so
    (event,) = audit_events(log)
    assert event["mode"] == "url" and event["outcome"] == "accept"
    assert event["url_verdict"] == "warn"
    # Everything the client sent and received, byte for byte: the key is not in it.
    wire = b"".join(recorded(record, "sent") + recorded(record, "received"))
    assert b"connect_weather" in wire and secret.encode() not in wire
    assert secret not in log.getvalue() + repr(renderer.prompts) + repr(renderer.notices)


@pytest.mark.slow
@pytest.mark.browser
async def test_open_this_link_first_goes_through_consent_and_completion_then_one_retry(
    tmp_path: Path,
) -> None:
    opener = Opener()
    renderer = PatientRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"service-{uuid.uuid4().hex}"
    # 2025-11-25, the revision of -32042 (2026-07-28 retired it for input requests).
    transport = secret_server(tmp_path)
    async with (
        ElicitingFastMCPClient(transport, handler, mode="legacy") as client,
        anyio.create_task_group() as tasks,
    ):

        async def person() -> None:
            await type_on_page(await opener.next_url(), "SERVICE_API_KEY", secret)

        tasks.start_soon(person)
        result = await client.call_tool("connect_later", {})
    assert text_of(result).startswith(f"ok: key ending in {secret[-4:]}")
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.required_by == "connect_later"
    assert len(opener.urls) == 1
    (event,) = audit_events(log)
    assert event["required_by"] == "connect_later" and event["mode"] == "url"
    assert event["outcome"] == "accept"
    assert event["completed_by"] == "server"  # notifications/elicitation/complete, read
    assert secret not in log.getvalue()


@pytest.mark.slow
async def test_a_declined_link_first_gives_the_caller_the_servers_error(tmp_path: Path) -> None:
    opener = Opener()
    renderer = RecordingRenderer([{"action": "decline"}])
    handler, log = handler_for(renderer, opener)
    async with ElicitingFastMCPClient(secret_server(tmp_path), handler, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("connect_later", {})
    assert raised.value.error.code == -32042
    assert opener.urls == []
    (event,) = audit_events(log)
    assert event["outcome"] == "decline" and event["required_by"] == "connect_later"


@pytest.mark.slow
async def test_a_blocked_link_never_opens(tmp_path: Path) -> None:
    # Said not to be local, the stdio server's http://127.0.0.1 page is blocked.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler, local=False) as client:
        result = await client.call_tool("connect_weather", {})
    assert text_of(result).startswith("Not connected (")
    assert opener.urls == [] and renderer.prompts == []  # nobody asked, nothing opened
    (notice,) = renderer.notices
    assert notice.level == "error" and "Blocked a link" in notice.text
    (event,) = audit_events(log)
    assert event["outcome"] == "cancel" and event["why"] == "url-blocked"
    assert event["url_verdict"] == "block"


@pytest.mark.slow
async def test_a_mode_the_policy_refuses_reaches_the_server_with_its_reason(
    tmp_path: Path,
) -> None:
    # fastmcp declares URL mode whatever the policy says, and sends any refusal as -32603:
    # the reason travels in the message.
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, policy=Policy(modes=ElicitationModes(form=True)))
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler, mode="legacy") as client:
        result = await client.call_tool("connect_weather", {}, raise_on_error=False)
    assert result.is_error
    assert "this client's policy does not answer this mode (fastmcp declares both)" in text_of(
        result
    )
    assert renderer.prompts == []
    (event,) = audit_events(log)
    assert event["outcome"] == "error" and event["error"]["code"] == -32602


@pytest.mark.slow
async def test_on_2026_07_28_a_refused_input_request_reaches_the_caller(tmp_path: Path) -> None:
    # fastmcp's retry loop raises the refusal instead of sending it: the server never hears.
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, policy=Policy(modes=ElicitationModes(form=True)))
    async with ElicitingFastMCPClient(quick_start(tmp_path), handler) as client:
        assert client.protocol_version == "2026-07-28"
        with pytest.raises(MCPError, match="does not answer this mode") as raised:
            await client.call_tool("connect_weather", {})
    assert raised.value.error.code == -32603
    assert renderer.prompts == []
    (event,) = audit_events(log)
    assert event["outcome"] == "error"


# -- without a server process ----------------------------------------------------------------


async def test_fastmcp_declares_both_modes_whatever_the_policy_says() -> None:
    # Pinned because docs/frameworks.md says so: if fastmcp ever declares what the policy
    # offers, that page (and the refusal text) must change.
    server = fastmcp.FastMCP("caps")

    @server.tool()
    async def caps(ctx: fastmcp.Context) -> str:
        params = ctx.session.client_params
        assert params is not None and params.capabilities.elicitation is not None
        return params.capabilities.elicitation.model_dump_json(exclude_none=True)

    handler = ElicitationHandler(
        RecordingRenderer([]), policy=Policy(modes=ElicitationModes(form=True))
    )
    async with ElicitingFastMCPClient(server, handler, mode="legacy") as client:
        assert not client.local  # in-process: not a server fastmcp started
        result = await client.call_tool("caps", {})
    assert text_of(result) == '{"form":{},"url":{}}'


def test_a_stdio_transport_is_local_and_others_are_not(tmp_path: Path) -> None:
    handler = ElicitationHandler(RecordingRenderer([]))
    script = tmp_path / "server.py"
    script.write_text("")
    assert ElicitingFastMCPClient(script, handler).local
    assert not ElicitingFastMCPClient("http://127.0.0.1:9/mcp", handler).local
    assert not ElicitingFastMCPClient(script, handler, local=False).local


async def test_an_http_url_gets_a_client_without_read_timeout_or_pool_limit() -> None:
    handler = ElicitationHandler(RecordingRenderer([]))
    client = ElicitingFastMCPClient("http://127.0.0.1:9/mcp", handler, timeout=5)
    factory = client.transport.httpx_client_factory
    assert factory is not None
    async with factory(headers={"X-A": "b"}, auth=None, follow_redirects=True) as http:
        assert isinstance(http, httpx2.AsyncClient)
        assert http.timeout.read is None and http.follow_redirects
        assert http.headers["X-A"] == "b"


async def test_the_handler_answers_in_fastmcps_types() -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": {"name": "Ada"}}])
    adapter = FastMCPHandler(ElicitationHandler(renderer))
    params = mcp_types.ElicitRequestFormParams(
        message="Who?",
        requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
    )

    class Session:
        server_info = mcp_types.Implementation(name="srv", version="1")
        protocol_version = "2025-11-25"

    class Context:
        session = Session()

    answer = await adapter("Who?", None, params, Context())
    assert answer.action == "accept" and answer.content == {"name": "Ada"}


def test_a_handler_is_set_by_the_client_itself() -> None:
    handler = ElicitationHandler(RecordingRenderer([]))
    with pytest.raises(TypeError, match="elicitation_handler"):
        ElicitingFastMCPClient("http://127.0.0.1:9/mcp", handler, elicitation_handler=print)
