"""Spec rows that were implemented but untested: one test per row, named after it, with the
row of /work/shared/spec/CHECKLIST.md (section 2) it checks in a comment.

Every test drives a real client (the SDK's ``mcp.Client``, or ours) against an ``MCPServer``
with ``Elicitation`` installed, in process.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import time
import types as pytypes
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit._sdk import ElicitingSdkClient
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.protocol.codes import ELICITATION_TRACK
from mcp_elicit.server import (
    AccessTokenIdentity,
    DeploymentKey,
    Elicitation,
    UrlRequired,
    ask_url,
    completions,
    confirm,
    secret,
    secret_required,
)
from mcp_elicit.server.identity import LOCAL_USER
from mcp_elicit.server.links import SECRET_PURPOSE
from mcp_elicit.server.scope import current_scope
from mcp_elicit.stores import FlowRecord, MemoryStore
from mcp_elicit.testing import connect
from tests.server_support import ERAS, Person, text
from tests.server_support import connect as connect_as

pytestmark = pytest.mark.anyio

PAGE = "https://example.com/connect"
NO_MODES = ElicitationModes()
FORM_ONLY = ElicitationModes(form=True)


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.01)


class CountingStore(MemoryStore):
    """A memory store that counts the flows created in it."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[FlowRecord] = []

    async def create_flow(self, flow: FlowRecord, *args: Any, **kwargs: Any) -> None:
        self.created.append(flow)
        await super().create_flow(flow, *args, **kwargs)


class Notices:
    """A client's ``message_handler``: the ``elicitationId`` of each completion notice."""

    def __init__(self) -> None:
        self.completed: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            self.completed.append(message.params.elicitation_id)


def link_server(
    store: CountingStore | None = None, **options: Any
) -> tuple[MCPServer, Elicitation, CountingStore]:
    """A server whose tools send the person to a page, every way there is."""
    store = store if store is not None else CountingStore()
    elicitation = Elicitation(key=DeploymentKey.generate(), store=store, **options)
    elicitation.public_url = "http://127.0.0.1:9"  # no page is visited in these tests
    server = MCPServer("rows", **elicitation.server_options())

    @server.tool()
    async def later(ctx: Context) -> str:
        raise await secret_required(ctx, "API_KEY", "Your API key, to connect")

    @server.tool()
    async def later_with_my_id(ctx: Context, elicitation_id: str) -> str:
        user = elicitation.user_of(ctx)
        flow = await elicitation.flows.start(
            user=user, purpose=SECRET_PURPOSE, details={"name": "API_KEY", "message": "m"}
        )
        raise UrlRequired(
            elicitation.flow_url(flow.id),
            "Your API key, to connect",
            elicitation_id=elicitation_id,
            flow_id=flow.id,
        )

    @server.tool()
    async def blocking_secret(ctx: Context) -> str:
        return repr(await secret(ctx, "API_KEY", "Your API key, to connect"))

    @server.tool()
    async def open_page(ctx: Context) -> str:
        return repr(await ask_url(ctx, PAGE, "Read the terms before we go on"))

    @server.tool()
    async def go_ahead(ctx: Context) -> str:
        return "yes" if await confirm(ctx, "Go ahead?") else "no"

    @server.tool()
    async def declared(ctx: Context) -> dict[str, Any]:
        request = current_scope(ctx).request
        capabilities = request.session.client_capabilities
        peer = current_scope(ctx).peer
        return {
            "elicitation": None
            if capabilities is None or capabilities.elicitation is None
            else capabilities.elicitation.model_dump(by_alias=True, exclude_none=True),
            "form": peer.modes.form,
            "url": peer.modes.url,
        }

    return server, elicitation, store


async def minus_32042(client: Client, tool: str = "later", **arguments: Any) -> dict[str, Any]:
    with pytest.raises(MCPError) as raised:
        await client.call_tool(tool, arguments)
    assert raised.value.error.code == -32042
    data = raised.value.error.data
    assert isinstance(data, dict)
    (item,) = data["elicitations"]
    assert isinstance(item, dict)
    return item


async def never_asked(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    raise AssertionError(f"-32042 only, never a request: {params}")


@contextlib.asynccontextmanager
async def two_sessions(
    server: MCPServer, elicitation: Elicitation
) -> AsyncIterator[tuple[Client, Notices, Client, Notices]]:
    first, second = Notices(), Notices()
    async with (
        elicitation.running(),
        Client(
            server, mode="legacy", elicitation_callback=never_asked, message_handler=first
        ) as alpha,
        Client(
            server, mode="legacy", elicitation_callback=never_asked, message_handler=second
        ) as beta,
    ):
        assert alpha.protocol_version == beta.protocol_version == "2025-11-25"
        yield alpha, first, beta, second


# -- 2.6 URL-mode completion ---------------------------------------------------------------------


async def test_completion_notice_goes_only_to_the_session_that_started_the_flow() -> None:
    # CHECKLIST #52 (2025-11-25, MUST): "only ... to the client that initiated the
    # elicitation request". Two sessions, each with a -32042 flow; completing one tells only
    # the session that got its -32042, with its id (#53).
    server, elicitation, _ = link_server()
    async with two_sessions(server, elicitation) as (alpha, told_alpha, beta, told_beta):
        alphas = (await minus_32042(alpha))["elicitationId"]
        betas = (await minus_32042(beta))["elicitationId"]
        assert alphas != betas
        await elicitation.flows.complete(alphas, user=LOCAL_USER)
        await until(lambda: told_alpha.completed == [alphas])
        await anyio.sleep(0.2)  # time for a stray notice to arrive, if one were sent
        assert told_beta.completed == []
        await elicitation.flows.complete(betas, user=LOCAL_USER)
        await until(lambda: told_beta.completed == [betas])
        await anyio.sleep(0.2)
    assert told_alpha.completed == [alphas] and told_beta.completed == [betas]


async def test_author_supplied_elicitation_id_is_the_one_sent_and_told() -> None:
    # CHECKLIST #53 (2025-11-25, MUST): the notice "includes the elicitationId from the
    # original request". An author's UrlRequired(elicitation_id=...) is that id: it is the
    # one in the -32042 (#65: URL mode, with elicitationId), and the one the completion
    # notice carries, not the flow id behind it (#24: the client treats it as opaque).
    server, elicitation, store = link_server()
    async with two_sessions(server, elicitation) as (alpha, told_alpha, _, told_beta):
        item = await minus_32042(alpha, "later_with_my_id", elicitation_id="author-chosen-7")
        assert item["mode"] == "url" and item["elicitationId"] == "author-chosen-7"
        (flow,) = store.created
        assert flow.id != "author-chosen-7" and flow.id in item["url"]
        await elicitation.flows.complete(flow.id, user=LOCAL_USER)
        await until(lambda: told_alpha.completed == ["author-chosen-7"])
        await anyio.sleep(0.2)
    assert told_alpha.completed == ["author-chosen-7"] and told_beta.completed == []


async def test_track_progress_strictly_increases_with_every_notification(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # CHECKLIST #60 (progress utility, used by the URL-mode draft's elicitation/track, #59):
    # "The progress value MUST increase with each notification". One track, held open for
    # several progress notifications (every 20 ms here, not every 5 s), then completed: every
    # notification is recorded, there are several, and each is above the one before.
    # (Our client speaks no draft of its own on 2025-06-18: the track is sent by hand, for a
    # flow of a -32042; the handler is the draft's, served whenever url_draft=True.)
    monkeypatch.setattr(completions, "TRACK_PROGRESS_EVERY", 0.02)
    server, elicitation, _ = link_server(url_draft=True)
    async with connect(server, protocol="2025-11-25", elicitation=elicitation) as mcp:
        sdk = mcp.client.sdk
        assert isinstance(sdk, ElicitingSdkClient)
        with pytest.raises(MCPError) as raised:
            await sdk.dispatcher.send_raw_request(
                "tools/call", {"name": "later", "arguments": {}}, {}
            )
        assert raised.value.error.code == -32042
        data = raised.value.error.data
        assert isinstance(data, dict)
        (item,) = data["elicitations"]
        seen: list[tuple[float, str | None]] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append((value, message))

        tracked: dict[str, Any] = {}

        async def track() -> None:
            params = {"elicitationId": item["elicitationId"], "_meta": {"progressToken": "p"}}
            tracked.update(
                await sdk.dispatcher.send_raw_request(
                    ELICITATION_TRACK, params, {"on_progress": progress}
                )
            )

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(track)
                await until(lambda: len(seen) >= 4)
                await elicitation.flows.complete(item["elicitationId"], user=LOCAL_USER)
    assert tracked == {"status": "complete"}
    values = [value for value, _ in seen]
    assert len(values) >= 4, seen
    assert all(b > a for a, b in itertools.pairwise(values)), values


# -- 2.1 capabilities ------------------------------------------------------------------------------


def modern_meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 request's ``_meta`` declaring exactly ``capabilities``."""
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "rows-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


async def test_capabilities_are_read_per_request_on_2026_07_28() -> None:
    # CHECKLIST #12 (2026-07-28, MUST NOT): "Servers MUST NOT infer capabilities from prior
    # requests" (and #11, #13: -32021 with data.requiredCapabilities). One connection: the
    # first request declares forms and gets the question; the retry, which carries its
    # answer and its requestState, declares nothing and gets -32021.
    server, _, _ = link_server()
    async with connect(server, protocol="2026-07-28") as mcp:
        sdk = mcp.client.sdk
        assert isinstance(sdk, ElicitingSdkClient)
        dispatcher = sdk.dispatcher  # sends as given: no _meta of the client's own

        async def call(capabilities: dict[str, Any], **params: Any) -> Any:
            return await dispatcher.send_raw_request(
                "tools/call",
                {
                    "name": "go_ahead",
                    "arguments": {},
                    "_meta": modern_meta(capabilities),
                    **params,
                },
                {},
            )

        first = await call({"elicitation": {"form": {}}})
        assert first["resultType"] == "input_required" and set(first["inputRequests"]) == {"q1"}
        answer = {"q1": {"action": "accept", "content": {"confirm": True}}}
        with pytest.raises(MCPError) as raised:
            await call({}, inputResponses=answer, requestState=first["requestState"])
        assert raised.value.error.code == -32021
        assert raised.value.error.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
        # Declared again on the next request, the same answer is taken.
        done = await call(
            {"elicitation": {"form": {}}}, inputResponses=answer, requestState=first["requestState"]
        )
    assert done["resultType"] == "complete" and done["content"][0]["text"] == "yes"


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_declares_no_elicitation_modes_is_never_asked(era: str) -> None:
    # CHECKLIST #4 (a client with neither mode does not declare elicitation) and #5 / #8 /
    # #13 (the server sends no mode the client did not declare): our client with no modes
    # declares no elicitation capability, and a tool that asks gets a tool error (2025) or
    # -32021 (2026-07-28) instead of a question.
    server, _, _ = link_server()
    person = Person([])
    async with connect_as(server, era, person, modes=NO_MODES) as client:
        seen = (await client.call_tool("declared", {})).structured_content
        if era == "2026-07-28":
            with pytest.raises(MCPError) as raised:
                await client.call_tool("go_ahead", {})
            assert raised.value.error.code == -32021
        else:
            result = await client.call_tool("go_ahead", {})
            assert result.is_error and "did not declare the elicitation capability" in text(result)
    assert seen == {"elicitation": None, "form": False, "url": False}
    assert person.seen == []


# -- 2.8 identity ----------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("tool", ["blocking_secret", "later"])
async def test_no_authenticated_user_no_flow(era: str, tool: str) -> None:
    # CHECKLIST #69 / #72 / #74: a flow is bound to the authenticated user, from the MCP
    # authorization (never a session id or a client's word). A request with none (the
    # access-token identity, and no token) is refused with CannotAsk, and no flow is made.
    server, _, store = link_server(identity=AccessTokenIdentity())
    person = Person([{"action": "accept"}])
    async with connect_as(server, era, person) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error
    assert "no authenticated user" in text(result)
    assert store.created == [] and person.seen == []


# -- 2.1 / 2.9 URL mode only for a client that declared it -------------------------------------


@pytest.mark.parametrize("tool", ["open_page", "blocking_secret", "later"])
async def test_url_mode_is_not_sent_to_a_2025_11_25_form_only_client(tool: str) -> None:
    # CHECKLIST #5 (MUST NOT send a mode the client did not declare) and #3 (an empty
    # elicitation object is form only): a 2025-11-25 client that declared forms only gets a
    # tool error saying why, through ask_url, secret and secret_required; no link, no flow.
    server, _, store = link_server()
    person = Person([{"action": "accept"}])
    async with connect_as(server, "2025-11-25", person, modes=FORM_ONLY) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error
    assert "did not declare elicitation URL mode" in text(result)
    assert person.seen == [] and store.created == []


@pytest.mark.parametrize("tool", ["open_page", "blocking_secret", "later"])
async def test_url_mode_needed_on_2026_07_28_is_minus_32021(tool: str) -> None:
    # CHECKLIST #11 / #13 (2026-07-28): a request that needs URL mode and did not declare it
    # gets -32021 with data.requiredCapabilities naming elicitation.url; no flow is made.
    server, _, store = link_server()
    person = Person([{"action": "accept"}])
    async with connect_as(server, "2026-07-28", person, modes=FORM_ONLY) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool(tool, {})
    assert raised.value.error.code == -32021
    assert raised.value.error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    assert person.seen == [] and store.created == []


async def test_url_mode_on_2025_06_18_which_has_none_is_a_tool_error() -> None:
    # CHECKLIST #5 with R1 (no URL mode at all): the error names the revision.
    server, _, store = link_server()
    person = Person([])
    async with connect_as(server, "2025-06-18", person) as client:
        result = await client.call_tool("open_page", {})
    assert result.is_error and "which has no URL mode" in text(result)
    assert person.seen == [] and store.created == []


# -- 2.10 requestState --------------------------------------------------------------------------


async def test_an_expired_request_state_is_refused(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # CHECKLIST #102 (2026-07-28, SHOULD): requestState has a short TTL
    # (Elicitation(request_state_ttl=...)); a retry after it is refused with -32602 before
    # the tool runs, and the server log says why ("expired").
    server, _, _ = link_server(request_state_ttl=60.0)
    async with Client(server, elicitation_callback=never_asked) as client:
        first = await client.session.call_tool("go_ahead", {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        answer: dict[str, types.InputResponse] = {
            "q1": types.ElicitResult(action="accept", content={"confirm": True})
        }
        # The SDK's boundary reads the clock as time.time(): 61 s on, past the 60 s lifetime.
        later = pytypes.SimpleNamespace(time=lambda: time.time() + 61)
        monkeypatch.setattr("mcp.server.request_state.time", later)
        with (
            caplog.at_level(logging.WARNING, logger="mcp.server.request_state"),
            pytest.raises(MCPError) as raised,
        ):
            await client.session.call_tool(
                "go_ahead",
                {},
                allow_input_required=True,
                input_responses=answer,
                request_state=first.request_state,
            )
        assert raised.value.error.code == -32602
        assert raised.value.error.message == "Invalid or expired requestState"
        assert "requestState rejected on tools/call: expired" in caplog.text
        # Within its lifetime the same state is taken: the refusal was about time.
        monkeypatch.undo()
        done = await client.session.call_tool(
            "go_ahead",
            {},
            allow_input_required=True,
            input_responses=answer,
            request_state=first.request_state,
        )
    assert isinstance(done, types.CallToolResult) and text(done) == "yes"
