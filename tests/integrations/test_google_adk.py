"""A Google ADK agent as the host, through :mod:`mcp_elicit.integrations.google_adk`: a real
``LlmAgent`` run by an ``InMemoryRunner``, its model our own ``BaseLlm`` with no LLM behind it
(it calls one tool, then says what came back: no network, no key), calling tools on the real
server processes the fastmcp tests start, over stdio as ADK starts them.

What is checked, and what ADK does without the adapter (measured here, docs/frameworks.md): a
form's answer reaches the tool and the tool's result the model; the secret typed on the
server's page in Chromium reaches the tool; "open this link first" (-32042) is taken through
consent, the server's completion notice and one retry before the model sees anything (bare,
the model reads it as the tool's error); a declined link reaches the model as that error;
decline and cancel reach the tool; a link the policy blocks never opens; a person slower than
the session's read timeout does not fail the call (bare, it does); the audit log has each step.
"""

from __future__ import annotations

import importlib.util
import math
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.peers import missing

if importlib.util.find_spec("google.adk") is None:
    missing("google-adk", fix="make setup")

import mcp_types
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
from google.adk.tools.mcp_tool.mcp_session_manager import MCPSessionManager
from mcp import StdioServerParameters
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitationHandler, Policy, UrlPrompt
from mcp_elicit.integrations import google_adk
from mcp_elicit.integrations.google_adk import (
    AdkElicitation,
    ElicitingMcpToolset,
    session_timeout,
)
from mcp_elicit.protocol import ElicitationModes
from tests.client_support import RecordingRenderer
from tests.integrations.adk_support import run_agent, stdio_params
from tests.integrations.fastmcp_support import (
    STAY,
    Opener,
    PatientRenderer,
    audit_events,
    handler_for,
    quick_start,
    recorded,
    secret_server,
    the_booking_was_asked_and_recorded,
    type_on_page,
)
from tests.peer_servers.secret_server import Browser

pytestmark = pytest.mark.anyio

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@pytest.fixture(autouse=True)
def nothing_leaves_this_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No key, and no connection or name lookup beyond loopback from the agent's process:
    ADK never reaches Google here (its ``Gemini`` model is never built)."""
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    reached: list[object] = []
    connect, lookup = socket.socket.connect, socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
            reached.append(address)
            raise OSError("this test reaches no network")
        connect(self, address)

    def guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOOPBACK and host is not None:
            reached.append(host)
            raise socket.gaierror("this test looks no name up")
        return lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)
    yield
    assert reached == []


STARTUP = 30.0  # ADK's connection timeout for servers slower to start than its 5 s default
LINK_FIRST = "MCP tool execution failed: This request needs you to open a link first."


@pytest.mark.slow
async def test_the_form_is_answered_and_the_tools_result_reaches_the_model(
    tmp_path: Path,
) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}])
    handler, log = handler_for(renderer)
    toolset = ElicitingMcpToolset(stdio_params(quick_start(tmp_path), timeout=STARTUP), handler)
    output, model = await run_agent(toolset, "book")
    assert "Booked 2 night(s) from 2026-12-01 for Ada." in output
    (response,) = model.responses()
    assert response["isError"] is False
    the_booking_was_asked_and_recorded(renderer, log)


@pytest.mark.slow
async def test_open_this_link_first_is_handled_before_the_model_sees_it(tmp_path: Path) -> None:
    # -32042 on 2025-11-25 (ADK's legacy handshake): consent, the link opened, the person
    # enters the key on the page, the server's completion notice (ADK gives the session no
    # message handler: the adapter's), the call once more; the model gets the tool's result.
    opener = Opener()
    renderer = PatientRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"service-{uuid.uuid4().hex}"
    toolset = ElicitingMcpToolset(stdio_params(secret_server(tmp_path), timeout=STARTUP), handler)
    person = Browser(None)
    try:
        async with anyio.create_task_group() as tasks:

            async def enter_the_key() -> None:
                await person.enter(await opener.next_url(), secret)

            tasks.start_soon(enter_the_key)
            output, model = await run_agent(toolset, "connect_later")
    finally:
        await person.aclose()
    assert f"ok: key ending in {secret[-4:]}" in output
    (response,) = model.responses()  # one result, no error
    assert "error" not in response and response["isError"] is False
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.required_by == "connect_later"
    assert len(opener.urls) == 1
    (event,) = audit_events(log)
    assert event["required_by"] == "connect_later" and event["outcome"] == "accept"
    assert event["completed_by"] == "server"  # notifications/elicitation/complete, read
    assert secret not in log.getvalue() + output + repr(model.requests)


@pytest.mark.slow
async def test_a_declined_link_first_reaches_the_model_as_the_tools_error(
    tmp_path: Path,
) -> None:
    # What ADK decides (docs/frameworks.md): the server's -32042, left when the person
    # declines, becomes the tool's {"error": ...}; the model reads the server's message.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "decline"}])
    handler, log = handler_for(renderer, opener)
    toolset = ElicitingMcpToolset(stdio_params(secret_server(tmp_path), timeout=STARTUP), handler)
    _, model = await run_agent(toolset, "connect_later")
    assert model.responses() == [{"error": LINK_FIRST}]
    assert opener.urls == []
    (event,) = audit_events(log)
    assert event["outcome"] == "decline" and event["required_by"] == "connect_later"


@pytest.mark.slow
async def test_without_the_adapter_open_this_link_first_reaches_the_model(tmp_path: Path) -> None:
    # Why ElicitingMcpToolset exists (issue 28): ADK's McpToolset with the handler as its
    # elicitation callback gives the model -32042 as the tool's error; nobody is asked.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    toolset = McpToolset(
        connection_params=stdio_params(secret_server(tmp_path), timeout=STARTUP),
        elicitation_callback=handler,
    )
    _, model = await run_agent(toolset, "connect_later")
    assert model.responses() == [{"error": LINK_FIRST}]
    assert renderer.prompts == [] and opener.urls == [] and audit_events(log) == []


@pytest.mark.slow
async def test_decline_and_cancel_reach_the_tool(tmp_path: Path) -> None:
    for action, said in [("decline", "Nothing booked (Declined())."), ("cancel", "Cancelled(")]:
        renderer = RecordingRenderer([{"action": action}])
        handler, log = handler_for(renderer)
        folder = tmp_path / action
        folder.mkdir()
        toolset = ElicitingMcpToolset(stdio_params(quick_start(folder), timeout=STARTUP), handler)
        output, _ = await run_agent(toolset, "book")
        assert said in output
        assert [e["outcome"] for e in audit_events(log)] == [action]


@pytest.mark.slow
async def test_a_blocked_link_never_opens(tmp_path: Path) -> None:
    # Said not to be local, the stdio server's http://127.0.0.1 page is blocked, as it is with
    # ADK's McpToolset and the bare handler (which cannot know ADK started the server).
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    toolset = ElicitingMcpToolset(
        stdio_params(quick_start(tmp_path), timeout=STARTUP), handler, local=False
    )
    output, _ = await run_agent(toolset, "connect_weather")
    assert "Not connected (Cancelled(reason='url-blocked'))" in output
    assert opener.urls == [] and renderer.prompts == []  # nobody asked, nothing opened
    (notice,) = renderer.notices
    assert notice.level == "error" and "Blocked a link" in notice.text
    (event,) = audit_events(log)
    assert event["outcome"] == "cancel" and event["why"] == "url-blocked"
    assert event["url_verdict"] == "block"


# ADK's session read timeout (StdioConnectionParams.timeout, 5 s by default) bounds every tool
# call, and the server's start too. With the adapter, the call's own timeout (here 2 s) is
# paused while the person answers (here 4 s); without it, ADK's runs on: 15 s, so that a
# loaded machine still starts the server within it, and the person takes 16 s.
CALL_TIMEOUT, PERSON_WITH_ADAPTER = 2.0, 4.0
SESSION_TIMEOUT, PERSON_WITHOUT = 15.0, 16.0


@pytest.mark.slow
async def test_the_person_answering_slowly_does_not_spend_the_calls_timeout(
    tmp_path: Path,
) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}], delay=PERSON_WITH_ADAPTER)
    handler, log = handler_for(renderer)
    params = stdio_params(quick_start(tmp_path), timeout=STARTUP)
    toolset = ElicitingMcpToolset(params, handler, timeout=CALL_TIMEOUT)
    assert toolset.call_timeout == CALL_TIMEOUT
    output, _ = await run_agent(toolset, "book")
    assert "Booked 2 night(s)" in output
    assert [e["outcome"] for e in audit_events(log)] == ["accept"]


@pytest.mark.slow
def test_by_default_the_calls_timeout_is_adks_own(tmp_path: Path) -> None:
    params = stdio_params(quick_start(tmp_path), timeout=SESSION_TIMEOUT)
    toolset = ElicitingMcpToolset(params, ElicitationHandler(RecordingRenderer([])))
    assert toolset.call_timeout == SESSION_TIMEOUT


@pytest.mark.slow
async def test_without_the_adapter_a_slow_person_fails_the_call(tmp_path: Path) -> None:
    # ADK's read timeout runs while the person answers: the model reads a timeout, the
    # question is taken back from the person, and nothing is recorded as answered.
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}], delay=PERSON_WITHOUT)
    handler, log = handler_for(renderer)
    params = stdio_params(quick_start(tmp_path), timeout=SESSION_TIMEOUT)
    toolset = McpToolset(connection_params=params, elicitation_callback=handler)
    _, model = await run_agent(toolset, "book")
    assert model.responses() == [
        {"error": "MCP tool execution failed: Request 'tools/call' timed out"}
    ]
    assert len(renderer.prompts) == 1 and audit_events(log) == []


@pytest.mark.slow
async def test_a_mode_the_policy_refuses_is_refused_truthfully(tmp_path: Path) -> None:
    # The SDK session ADK builds declares both modes for any callback (the bytes the server
    # read, recorded); a URL request the policy leaves out is refused with -32602 saying so.
    record = tmp_path / "record"
    record.mkdir()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, policy=Policy(modes=ElicitationModes(form=True)))
    transport = quick_start(tmp_path, record=record)
    toolset = ElicitingMcpToolset(stdio_params(transport, timeout=STARTUP), handler)
    await run_agent(toolset, "connect_weather")
    (sent,) = recorded(record, "sent")
    assert b'"elicitation":{"form":{},"url":{}}' in sent
    assert renderer.prompts == []
    # What the server read: -32602, the problem said truthfully. (The audit log keeps the
    # handler's own refusal, as under every adapter.)
    assert b"this client's policy does not answer this mode (ADK declares both)" in sent
    assert b'"code":-32602' in sent
    (event,) = audit_events(log)
    assert event["outcome"] == "error" and event["error"]["code"] == -32602


@pytest.mark.slow
@pytest.mark.browser
async def test_the_secret_typed_on_the_hosted_page_reaches_the_tool(tmp_path: Path) -> None:
    # ADK started the server over stdio: local, so its http://127.0.0.1 page is offered (with
    # the local-development warning); the person types the key in Chromium.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"weather-{uuid.uuid4().hex}"
    toolset = ElicitingMcpToolset(stdio_params(quick_start(tmp_path), timeout=STARTUP), handler)
    assert toolset.local
    async with anyio.create_task_group() as tasks:

        async def person() -> None:
            await type_on_page(await opener.next_url(), "WEATHER_API_KEY", secret)

        tasks.start_soon(person)
        output, model = await run_agent(toolset, "connect_weather")
    assert f"Connected ({len(secret)} characters)." in output
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.url.startswith("http://127.0.0.1:")
    assert prompt.verdict.verdict.value == "warn"  # local development, said so
    (event,) = audit_events(log)
    assert event["mode"] == "url" and event["outcome"] == "accept"
    assert secret not in log.getvalue() + repr(model.requests) + repr(renderer.prompts)


# -- without a server process ----------------------------------------------------------------


def _params() -> StdioConnectionParams:
    return StdioConnectionParams(server_params=StdioServerParameters(command="true"))


def test_a_stdio_server_is_local_and_others_are_not() -> None:
    from google.adk.tools.mcp_tool import StreamableHTTPConnectionParams

    handler = ElicitationHandler(RecordingRenderer([]))
    assert ElicitingMcpToolset(_params(), handler).local
    assert ElicitingMcpToolset(StdioServerParameters(command="true"), handler).local
    assert not ElicitingMcpToolset(_params(), handler, local=False).local
    remote = StreamableHTTPConnectionParams(url="http://127.0.0.1:9/mcp")
    toolset = ElicitingMcpToolset(remote, handler)
    assert not toolset.local and toolset.handler is handler
    assert toolset.call_timeout == session_timeout(remote) == 300.0
    assert ElicitingMcpToolset(_params(), handler).call_timeout == 5.0  # ADK's default
    with pytest.raises(TypeError, match="elicitation_callback"):
        ElicitingMcpToolset(_params(), handler, elicitation_callback=handler)


def test_the_toolset_keeps_its_session_pool_where_adk_looks() -> None:
    # Pins the private name _use_session_manager sets (ADK 2.13): every McpTool the toolset
    # lists is given this pool.
    handler = ElicitationHandler(RecordingRenderer([]))
    plain = McpToolset(connection_params=_params())
    assert isinstance(plain._mcp_session_manager, MCPSessionManager)
    toolset = ElicitingMcpToolset(_params(), handler, tool_filter=["book"])
    manager = toolset._mcp_session_manager
    assert isinstance(manager, google_adk._ElicitingSessionManager)
    assert manager._elicitation_callback is toolset.elicitation


async def test_a_session_hears_completion_notices_then_its_own_handler() -> None:
    # The SDK's private _message_handler, wrapped by mcp_elicit._sdk.hear_session_messages
    # (pinned by tests/test_sdk_surface.py): ADK sets none.
    send, receive = anyio.create_memory_object_stream[Any](1)
    back_send, back_receive = anyio.create_memory_object_stream[Any](1)
    seen: list[Any] = []

    async def theirs(message: Any) -> None:
        seen.append(message)

    session = ClientSession(receive, back_send, message_handler=theirs)
    handler = ElicitationHandler(RecordingRenderer([]))
    toolset = ElicitingMcpToolset(_params(), handler)
    toolset.hook(session)
    toolset.hook(session)  # once only: the pool hands the same session out again
    waiting = handler.completions.expect("e-1")
    complete = mcp_types.ElicitCompleteNotification(
        params=mcp_types.ElicitCompleteNotificationParams(elicitation_id="e-1")
    )
    await session._message_handler(complete)
    assert waiting.is_set() and seen == [complete]
    for stream in (send, receive, back_send, back_receive):
        stream.close()


def test_the_callback_is_the_sdks_elicitation_callback() -> None:
    handler = ElicitationHandler(RecordingRenderer([]))
    callback = AdkElicitation(handler, local=True)
    toolset = McpToolset(connection_params=_params(), elicitation_callback=callback)
    assert toolset._mcp_session_manager._elicitation_callback is callback


class SlowSession:
    """Stands in for the SDK session ADK opened: its tool call takes ``seconds``, and it
    records the read timeout it was given."""

    server_info = None
    protocol_version = "2025-11-25"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.read_timeouts: list[float | None] = []

    async def _message_handler(self, message: Any) -> None:
        pass

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        **options: Any,
    ) -> mcp_types.CallToolResult:
        self.read_timeouts.append(read_timeout_seconds)
        await anyio.sleep(self.seconds)
        return mcp_types.CallToolResult(content=[])


async def test_a_slow_server_still_runs_out_the_calls_timeout() -> None:
    # The SDK's clock is given none (it would run while the person answers); ours, paused
    # only while someone answers, ends a call whose server is slow.
    handler = ElicitationHandler(RecordingRenderer([]))
    toolset = ElicitingMcpToolset(_params(), handler, timeout=0.2)
    slow = SlowSession(5.0)
    toolset.hook(slow)  # type: ignore[arg-type]
    with pytest.raises(MCPError, match=r"timed out after 0\.2 s") as raised:
        await slow.call_tool("book", {}, progress_callback=None, meta=None)
    assert raised.value.error.code == mcp_types.REQUEST_TIMEOUT
    assert slow.read_timeouts == [math.inf]
    quick = SlowSession(0.0)
    toolset.hook(quick)  # type: ignore[arg-type]
    assert await quick.call_tool("book", {}) == mcp_types.CallToolResult(content=[])
