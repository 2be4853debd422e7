"""Questions outside tools: ``ask``, ``confirm``, ``choose``, ``ask_url`` and ``secret`` inside a
prompt (``prompts/get``) and a resource read (``resources/read``), on every revision.

2026-07-28 allows an ``InputRequiredResult`` on exactly ``tools/call``, ``prompts/get`` and
``resources/read`` (CHECKLIST #98, ``protocol.ASKING_METHODS``); the push era lets a server send
``elicitation/create`` while it serves any request. The same scope, set up by the middleware
around every request, serves them all.

Driven by our client (``mcp_elicit.testing.connect``, whose ``ElicitingClient.sdk`` gets
prompts and reads resources) and by the SDK's own ``mcp.Client``. An error of ours raised in a
prompt or a resource reaches the client with its text (the SDK would say only "Error rendering
prompt", code 0).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    ask,
    ask_url,
    choose,
    confirm,
    secret,
)
from mcp_elicit.testing import connect, enter_secret
from tests.server_support import ERAS, SDK_MODES

pytestmark = pytest.mark.anyio

PAGE = "https://example.com/welcome"
FORM_ANSWERS = [
    {"action": "accept", "content": {"name": "Ada"}},
    {"action": "accept", "content": {"confirm": True}},
    {"action": "accept", "content": {"choice": "dry"}},
]
GREETING = "Greet Ada, formal=True, tone=dry"
LINK_ERAS = ["2025-11-25", "2026-07-28"]  # 2025-06-18 has no URL mode


@dataclass
class Who:
    name: str


def build() -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://", url_resume_wait=10.0)
    server = MCPServer("outside-tools", **elicitation.server_options())

    async def three_questions(ctx: Context) -> str:
        who = await ask(ctx, Who, "Who is it for?")
        formal = await confirm(ctx, "Formal?")
        tone = await choose(ctx, "Which tone?", ["warm", "dry"])
        name = who.value.name if isinstance(who, Accepted) else "-"
        chosen = tone.value if isinstance(tone, Accepted) else "-"
        return f"Greet {name}, formal={formal}, tone={chosen}"

    @server.prompt()
    async def greet(ctx: Context) -> str:
        return await three_questions(ctx)

    @server.resource("greeting://{topic}")
    async def greeting(topic: str, ctx: Context) -> str:
        return f"{topic}: {await three_questions(ctx)}"

    @server.prompt()
    async def welcome(ctx: Context) -> str:
        opened = await ask_url(ctx, PAGE, "Read the welcome page before we start")
        return f"welcome: {opened!r}"

    @server.resource("welcome://{topic}")
    async def welcome_note(topic: str, ctx: Context) -> str:
        opened = await ask_url(ctx, PAGE, "Read the welcome page before we start")
        return f"{topic}: {opened!r}"

    @server.prompt()
    async def with_key(ctx: Context, name: str) -> str:
        got = await secret(ctx, name, "Your key, to write this prompt")
        return f"{name}: {got.value.get_secret_value() if isinstance(got, Accepted) else got}"

    @server.resource("key://{name}")
    async def key_note(name: str, ctx: Context) -> str:
        got = await secret(ctx, name, "Your key, to read this note")
        return f"{name}: {got.value.get_secret_value() if isinstance(got, Accepted) else got}"

    @server.prompt()
    async def linked_in_text(ctx: Context) -> str:
        return repr(await confirm(ctx, f"Read {PAGE} first?"))

    return server, elicitation


def prompt_text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text


def resource_text(result: types.ReadResourceResult) -> str:
    content = result.contents[0]
    assert isinstance(content, types.TextResourceContents)
    return content.text


# -- our client --------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
async def test_forms_in_a_prompt_and_a_resource_with_our_client(era: str) -> None:
    server, _ = build()
    with anyio.fail_after(20):
        async with connect(server, protocol=era, answers=FORM_ANSWERS * 2) as mcp:
            prompt = await mcp.client.sdk.get_prompt("greet", {})
            resource = await mcp.client.sdk.read_resource("greeting://tea")
    assert prompt_text(prompt) == GREETING
    assert resource_text(resource) == f"tea: {GREETING}"
    assert [q.message for q in mcp.asked] == ["Who is it for?", "Formal?", "Which tone?"] * 2
    assert {q.revision for q in mcp.asked} == {era}


@pytest.mark.parametrize("era", LINK_ERAS)
async def test_ask_url_in_a_prompt_and_a_resource_with_our_client(era: str) -> None:
    server, _ = build()
    with anyio.fail_after(20):
        async with connect(server, protocol=era, answers=[{"action": "accept"}] * 2) as mcp:
            prompt = await mcp.client.sdk.get_prompt("welcome", {})
            resource = await mcp.client.sdk.read_resource("welcome://tea")
    assert prompt_text(prompt) == "welcome: Accepted(value=None)"
    assert resource_text(resource) == "tea: Accepted(value=None)"
    assert [q.mode for q in mcp.asked] == ["url", "url"]
    assert mcp.opened == [PAGE, PAGE]


@pytest.mark.parametrize("era", LINK_ERAS)
async def test_secret_in_a_prompt_and_a_resource_with_our_client(era: str) -> None:
    server, elicitation = build()
    with anyio.fail_after(30):
        async with connect(
            server,
            protocol=era,
            answers=[{"action": "accept"}] * 2,
            links=enter_secret("sk-outside"),
            elicitation=elicitation,
        ) as mcp:
            prompt = await mcp.client.sdk.get_prompt("with_key", {"name": "PROMPT_KEY"})
            resource = await mcp.client.sdk.read_resource("key://NOTE_KEY")
    assert prompt_text(prompt) == "PROMPT_KEY: sk-outside"
    assert resource_text(resource) == "NOTE_KEY: sk-outside"
    assert [q.mode for q in mcp.asked] == ["url", "url"]  # one page each


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_client_without_forms_is_told_why_in_a_prompt(era: str) -> None:
    server, _ = build()
    async with connect(server, protocol=era, modes=ElicitationModes()) as mcp:
        with pytest.raises(MCPError) as prompt:
            await mcp.client.sdk.get_prompt("greet", {})
        with pytest.raises(MCPError) as resource:
            await mcp.client.sdk.read_resource("greeting://tea")
    assert mcp.asked == []
    for raised in (prompt.value, resource.value):
        if era == "2026-07-28":
            assert raised.error.code == -32021
            assert raised.error.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
        else:  # our text, not the SDK's "Error rendering prompt" with code 0
            assert raised.error.code == -32600
            assert "did not declare the elicitation capability for forms" in raised.error.message


@pytest.mark.parametrize("era", ERAS)
async def test_an_authoring_error_in_a_prompt_reaches_the_client_with_its_text(era: str) -> None:
    server, _ = build()
    async with connect(server, protocol=era) as mcp:
        with pytest.raises(MCPError) as raised:
            await mcp.client.sdk.get_prompt("linked_in_text", {})
    assert raised.value.error.code == -32603
    assert raised.value.error.message.startswith(f"the message contains a URL ({PAGE})")
    assert mcp.asked == []


# -- the SDK's own client -------------------------------------------------------------------------


class SdkPerson:
    """An SDK ``elicitation_callback``: forms from a script; a link is accepted, and a secret's
    page is filled in first (``enter_secret``), as a person would before coming back."""

    def __init__(self, forms: list[dict[str, Any]], value: str = "sk-sdk") -> None:
        self.forms = list(forms)
        self.value = value
        self.seen: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.seen.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            if "/elicit/flows/" in params.url:
                await enter_secret(self.value)(params.url)
            return types.ElicitResult(action="accept")
        return types.ElicitResult.model_validate(self.forms.pop(0))


@contextlib.asynccontextmanager
async def sdk_client(era: str, person: SdkPerson) -> AsyncIterator[Client]:
    server, elicitation = build()
    async with (
        elicitation.running(serve_pages_on_loopback=True),
        Client(server, mode=SDK_MODES[era], elicitation_callback=person) as client,
    ):
        assert client.protocol_version == era
        yield client


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_forms_in_a_prompt_and_a_resource_with_the_sdk_client(era: str) -> None:
    person = SdkPerson(FORM_ANSWERS * 2)
    with anyio.fail_after(20):
        async with sdk_client(era, person) as client:
            prompt = await client.get_prompt("greet", {})
            resource = await client.read_resource("greeting://tea")
    assert prompt_text(prompt) == GREETING
    assert resource_text(resource) == f"tea: {GREETING}"
    assert [p.message for p in person.seen] == ["Who is it for?", "Formal?", "Which tone?"] * 2


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_links_and_secrets_in_a_prompt_and_a_resource_with_the_sdk_client(
    era: str,
) -> None:
    person = SdkPerson([])
    with anyio.fail_after(30):
        async with sdk_client(era, person) as client:
            welcome = await client.get_prompt("welcome", {})
            note = await client.read_resource("welcome://tea")
            keyed = await client.get_prompt("with_key", {"name": "SDK_PROMPT_KEY"})
            key_note = await client.read_resource("key://SDK_NOTE_KEY")
    assert prompt_text(welcome) == "welcome: Accepted(value=None)"
    assert resource_text(note) == "tea: Accepted(value=None)"
    assert prompt_text(keyed) == "SDK_PROMPT_KEY: sk-sdk"
    assert resource_text(key_note) == "SDK_NOTE_KEY: sk-sdk"
    assert all(isinstance(p, types.ElicitRequestURLParams) for p in person.seen)
    assert len(person.seen) == 4
