"""The OpenAI Agents SDK as the host, through ``mcp-elicit gateway --ask``: a real
``agents.Agent`` whose ``MCPServerStreamableHttp`` (it declares no elicitation: the SDK has no
hook for it) reaches a gateway that asks the person itself, in front of the README quick
start's server, a real process over stdio. The agent's model is our own, written against the
SDK's public ``Model`` interface: it calls one tool, then says what the tool returned (no LLM,
no network, no key). The gateway runs in-process (``Gateway(ask=...)``, as ``--ask`` builds
it), served over Streamable HTTP, so its person is a scripted renderer the test drives.

What is checked: the form answered by the gateway's person and the tool's result reaching the
agent's final output; the secret typed on the server's page in Chromium reaching the tool and
never the agent (nor the gateway); the upstream seeing the answers a capable client sends
(every byte between the gateway and the server recorded with ``tee``); decline, cancel and a
blocked link (never offered nor opened; the audit says why) reaching the agent as the tool's
results; "open this link first" (-32042) from a 2025-11-25 upstream (the tests' secret
server) answered by the gateway's person, the key typed on the server's page in Chromium, the
agent getting the tool's result and never the error; and the SDK's default 5 s session
timeout running out while the person reads, with the raised one the docs name.
"""

from __future__ import annotations

import io
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents import (
    Agent,
    Model,
    ModelResponse,
    ModelSettings,
    RunConfig,
    Runner,
    Tool,
    Usage,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp
from agents.models.interface import ModelTracing
from mcp.client.stdio import StdioServerParameters
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from mcp_elicit.client import AuditLog, ElicitationHandler, ScriptedRenderer
from mcp_elicit.client.prompts import Decision, FormPrompt
from mcp_elicit.gateway import Gateway
from tests import markers
from tests.gateway.asking_support import GatewayPerson
from tests.integrations.fastmcp_support import (
    KEY,
    STAY,
    audit_events,
    recorded,
    recorded_command,
    type_on_page,
)
from tests.paths import EXAMPLES, PEER_SERVERS
from tests.server_support import Person, connect, serve_on_loopback, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

RAISED = 300.0  # what the docs tell a host to give client_session_timeout_seconds


@pytest.fixture(autouse=True)
def no_tracing() -> Iterator[None]:
    # The SDK would send traces to OpenAI (with a key it has not got): off.
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


class CallsOnce(Model):
    """A model with no LLM behind it: it calls ``tool`` once, then answers with what the tool
    returned. ``inputs`` keeps everything the agent gave it."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.inputs: list[Any] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        self.inputs.append(input)
        assert self.tool in [tool.name for tool in tools]
        items = [input] if isinstance(input, str) else input
        outputs = [
            item
            for item in items
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        if outputs:
            said = outputs[-1]["output"]  # a string, or the tool's content as input items
            if isinstance(said, list):
                said = " ".join(part.get("text", "") for part in said)
            message = ResponseOutputMessage(
                id="msg_1",
                type="message",
                role="assistant",
                status="completed",
                content=[
                    ResponseOutputText(
                        type="output_text", text=f"tool said: {said}", annotations=[]
                    )
                ],
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)
        call = ResponseFunctionToolCall(
            type="function_call", name=self.tool, arguments="{}", call_id=f"call_{self.tool}"
        )
        return ModelResponse(output=[call], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this model does not stream")


def quick_start(tmp_path: Path) -> StdioServerParameters:
    """The README quick start's server over stdio, every byte to and from each process of it
    copied by ``tee`` into ``tmp_path`` (:func:`recorded_command`)."""
    markers.require("slow")
    command, args = recorded_command(str(EXAMPLES / "server_quickstart.py"), tmp_path)
    env = dict(
        os.environ,
        XDG_STATE_HOME=str(tmp_path / "state"),
        MCP_ELICIT_KEY=KEY,
        PYTHONUNBUFFERED="1",
    )
    return StdioServerParameters(command=command, args=args, env=env, cwd=str(tmp_path))


def secret_upstream(tmp_path: Path) -> StdioServerParameters:
    """The tests' secret server over stdio (``connect_later``: "open this link first" until the
    key is stored; -32042 on 2025-11-25), on a SQLite store of the test's own, recorded as
    :func:`quick_start` is."""
    markers.require("slow")
    store = f"sqlite:///{tmp_path / 'flows.db'}"
    script = str(PEER_SERVERS / "secret_server.py")
    command, args = recorded_command(script, tmp_path, "--store", store)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), MCP_ELICIT_KEY=KEY)
    return StdioServerParameters(command=command, args=args, env=env, cwd=str(tmp_path))


def asking_upstream(tmp_path: Path) -> StdioServerParameters:
    """tests/gateway/asking_support.py's server over stdio: ``book`` (a form) and
    ``open_bad_page`` (a link with a password in it, which the policy blocks)."""
    markers.require("slow")
    code = "from tests.gateway.asking_support import asking_server; asking_server().run()"
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=root, XDG_STATE_HOME=str(tmp_path / "state"))
    return StdioServerParameters(command=sys.executable, args=["-c", code], env=env, cwd=root)


@asynccontextmanager
async def gateway_asking(
    upstream: StdioServerParameters,
    person: GatewayPerson,
    upstream_protocol: str = "auto",
    audit: io.StringIO | None = None,
) -> AsyncIterator[str]:
    """``mcp-elicit gateway --ask`` in-process, in front of ``upstream``, asking ``person``
    (its audit log into ``audit``, if given); served over Streamable HTTP on loopback. Yields
    its URL."""
    ask = person.handler() if audit is None else person.handler(audit=AuditLog(audit))
    async with (
        Gateway(upstream, upstream_protocol=upstream_protocol, ask=ask) as gateway,
        serve_on_loopback(gateway.http_app(), log_level="warning") as port,
    ):
        yield f"http://127.0.0.1:{port}/mcp"


def hotel(url: str, timeout: float | None = RAISED) -> MCPServerStreamableHttp:
    """The agent's MCP server, as a host writes it: the gateway's URL, the session timeout
    raised (the SDK's default is 5 s)."""
    return MCPServerStreamableHttp(
        {"url": url, "timeout": 30, "sse_read_timeout": RAISED},
        client_session_timeout_seconds=timeout,
    )


def wire(tmp_path: Path) -> list[dict[str, Any]]:
    """The JSON-RPC messages the gateway sent the upstream, each process's in order."""
    lines = b"".join(recorded(tmp_path, "sent")).decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


async def run_agent(model: CallsOnce, server: MCPServerStreamableHttp, ask: str) -> Any:
    agent = Agent(name="concierge", instructions="Use the hotel's tools.", model=model)
    agent.mcp_servers = [server]
    async with server:
        return await Runner.run(agent, ask, run_config=RunConfig(tracing_disabled=True))


@pytest.mark.parametrize("upstream_protocol", ["2025-11-25", "2026-07-28"])
async def test_the_form_is_answered_and_the_result_reaches_the_agent(
    tmp_path: Path, upstream_protocol: str
) -> None:
    person = GatewayPerson([{"action": "accept", "content": STAY}])
    model = CallsOnce("book")
    async with gateway_asking(quick_start(tmp_path), person, upstream_protocol) as url:
        result = await run_agent(model, hotel(url), "Book me two nights from 1 December.")
    assert person.screen == [("form", "Who is staying, and when?")]
    assert "Booked 2 night(s) from 2026-12-01 for Ada." in result.final_output
    assert result.final_output.startswith("tool said: ")


def upstream_view(tmp_path: Path) -> list[tuple[str, Any]]:
    """What the upstream learns of its client: the capabilities declared, the calls (their
    ``requestState`` aside) and the answers, without ids or listings; each once, in a fixed
    order, whichever of the server's processes (a gateway starts one per session) saw it."""
    seen: dict[str, tuple[str, Any]] = {}
    for message in wire(tmp_path):
        method = message.get("method")
        if method == "initialize":
            item: tuple[str, Any] = ("declared", message["params"]["capabilities"])
        elif method == "tools/call":
            params = {k: v for k, v in message["params"].items() if k != "requestState"}
            item = ("call", params)
        elif "result" in message:
            item = ("answer", message["result"])
        else:
            continue
        seen[json.dumps(item, sort_keys=True)] = item
    return [seen[key] for key in sorted(seen)]


@pytest.mark.parametrize("upstream_protocol", ["2025-11-25", "2026-07-28"])
async def test_the_upstream_cannot_tell_the_host_could_not_ask(
    tmp_path: Path, upstream_protocol: str
) -> None:
    # The agent (no elicitation), its person asked by the gateway ...
    agents_run = tmp_path / "agent"
    agents_run.mkdir()
    person = GatewayPerson([{"action": "accept", "content": STAY}])
    async with gateway_asking(quick_start(agents_run), person, upstream_protocol) as url:
        await run_agent(CallsOnce("book"), hotel(url), "Book me two nights from 1 December.")
    # ... and a host that declares elicitation, asked itself, through a gateway without --ask.
    capable_run = tmp_path / "capable"
    capable_run.mkdir()
    their_person = Person([{"action": "accept", "content": STAY}])
    async with (
        Gateway(quick_start(capable_run), upstream_protocol=upstream_protocol) as gateway,
        connect(gateway.server, "2025-11-25", their_person) as host,
    ):
        assert "Booked 2 night(s)" in text(await host.call_tool("book", {}))
    assert len(their_person.seen) == 1
    seen = upstream_view(agents_run)
    assert seen == upstream_view(capable_run)
    assert ("answer", {"action": "accept", "content": STAY}) in seen or any(
        kind == "call" and "inputResponses" in what for kind, what in seen
    )
    declared = json.dumps(seen)
    assert '"elicitation": {"form": {}, "url": {}}' in declared


@pytest.mark.browser
@pytest.mark.parametrize("upstream_protocol", ["2025-11-25", "2026-07-28"])
async def test_the_secret_is_typed_on_the_servers_page_and_never_reaches_the_agent(
    tmp_path: Path, upstream_protocol: str
) -> None:
    person = GatewayPerson([{"action": "accept"}], completion_wait=30.0)
    model = CallsOnce("connect_weather")
    key = f"weather-{uuid.uuid4().hex}"
    result: Any = None

    async def agent(url: str) -> None:
        nonlocal result
        result = await run_agent(model, hotel(url), "Connect the weather service.")

    async with (
        gateway_asking(quick_start(tmp_path), person, upstream_protocol) as url,
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(agent, url)
        with anyio.fail_after(30):
            while not person.opened:
                await anyio.sleep(0.05)
        [page] = person.opened
        await type_on_page(page, "WEATHER_API_KEY", key)
    # Consent first (the scripted person is told of the link's warnings), then the opening.
    assert [kind for kind, _ in person.screen] == ["url", "notice", "opened"]
    prompt = person.screen[0][1]
    assert "allowed for local development" in person.screen[1][1]
    assert prompt.url == page and page.startswith("http://127.0.0.1:")
    assert result.final_output == f"tool said: Connected ({len(key)} characters)."
    # The key went from the browser to the server: not through the agent, its model or the
    # gateway (every byte between the gateway and the server holds no trace of it).
    assert key not in json.dumps(model.inputs, default=str)
    assert key not in json.dumps([item.to_input_item() for item in result.new_items], default=str)
    assert key not in str(person.screen)
    upstream = b"".join(recorded(tmp_path, "sent") + recorded(tmp_path, "received"))
    upstream_bytes = upstream.decode()
    assert page in upstream_bytes and key not in upstream_bytes


async def test_decline_cancel_and_a_blocked_link_reach_the_agent_as_the_tools_results(
    tmp_path: Path,
) -> None:
    # One gateway, one session: the agent asked three times, a tool call each.
    person = GatewayPerson([{"action": "decline"}, {"action": "cancel"}])
    log = io.StringIO()
    said: list[str] = []
    models: list[CallsOnce] = []
    async with gateway_asking(asking_upstream(tmp_path), person, audit=log) as url:
        server = hotel(url)
        async with server:
            for tool in ["book", "book", "open_bad_page"]:
                model = CallsOnce(tool)
                models.append(model)
                agent = Agent(name="concierge", model=model, mcp_servers=[server])
                result = await Runner.run(
                    agent, f"Use {tool}.", run_config=RunConfig(tracing_disabled=True)
                )
                said.append(result.final_output)
    assert said == [
        "tool said: declined",
        "tool said: cancelled (None)",
        "tool said: Cancelled(reason='url-blocked')",
    ]
    # The person saw the two forms and a notice; the blocked link was neither offered nor
    # opened, and its password was shown to nobody.
    assert [kind for kind, _ in person.screen] == ["form", "form", "notice"]
    assert "Blocked a link" in person.screen[2][1] and person.opened == []
    decline, cancel, blocked = audit_events(log)
    assert (decline["mode"], decline["outcome"]) == ("form", "decline")
    assert (cancel["mode"], cancel["outcome"]) == ("form", "cancel")
    assert (blocked["mode"], blocked["outcome"], blocked["why"]) == ("url", "cancel", "url-blocked")
    assert blocked["url_verdict"] == "block"
    seen = json.dumps([m.inputs for m in models], default=str) + str(person.screen)
    assert "hunter2" not in seen + log.getvalue()


@pytest.mark.browser
async def test_open_this_link_first_is_answered_before_the_agent_sees_it(tmp_path: Path) -> None:
    # A 2025-11-25 upstream raises -32042 ("open this link first"); the gateway's person
    # consents, opens the link and types the key on the server's page; the gateway calls once
    # more, and the agent gets the tool's result, never the error.
    person = GatewayPerson([{"action": "accept"}], completion_wait=30.0)
    log = io.StringIO()
    model = CallsOnce("connect_later")
    key = f"service-{uuid.uuid4().hex}"
    result: Any = None

    async def agent(url: str) -> None:
        nonlocal result
        result = await run_agent(model, hotel(url), "Connect the service.")

    async with (
        gateway_asking(secret_upstream(tmp_path), person, "2025-11-25", audit=log) as url,
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(agent, url)
        with anyio.fail_after(30):
            while not person.opened:
                await anyio.sleep(0.05)
        [page] = person.opened
        await type_on_page(page, "SERVICE_API_KEY", key)
    assert result.final_output.startswith(f"tool said: ok: key ending in {key[-4:]} (sha256 ")
    assert [kind for kind, _ in person.screen] == ["url", "notice", "opened"]
    prompt = person.screen[0][1]
    assert prompt.required_by == "connect_later" and prompt.url == page
    (event,) = audit_events(log)
    assert (event["required_by"], event["outcome"]) == ("connect_later", "accept")
    assert event["completed_by"] == "server"
    # The upstream did raise -32042, and was called twice; the agent's model saw one result.
    answers = [json.loads(line) for line in b"".join(recorded(tmp_path, "received")).splitlines()]
    assert [a["error"]["code"] for a in answers if "error" in a] == [-32042]
    assert [m["params"]["name"] for m in wire(tmp_path) if m.get("method") == "tools/call"] == [
        "connect_later",
        "connect_later",
    ]
    conversation = json.dumps(model.inputs, default=str)
    assert "-32042" not in conversation and "open a link first" not in conversation
    assert key not in conversation + str(person.screen) + log.getvalue()
    upstream = b"".join(recorded(tmp_path, "sent") + recorded(tmp_path, "received")).decode()
    assert key not in upstream


class Slow(ScriptedRenderer):
    """A person who takes ``delay`` seconds to read a form before answering."""

    def __init__(self, answers: list[dict[str, Any]], delay: float) -> None:
        super().__init__(answers)
        self.delay = delay
        self.asked = self.answered = 0

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        self.asked += 1
        await anyio.sleep(self.delay)
        self.answered += 1
        return await super().ask_form(prompt)


async def test_the_sdks_default_five_seconds_run_out_while_the_person_reads(
    tmp_path: Path,
) -> None:
    renderer = Slow([{"action": "accept", "content": STAY}], delay=6.0)
    model = CallsOnce("book")
    async with (
        Gateway(quick_start(tmp_path), ask=ElicitationHandler(renderer)) as gateway,
        serve_on_loopback(gateway.http_app(), log_level="warning") as port,
    ):
        url = f"http://127.0.0.1:{port}/mcp"
        default = MCPServerStreamableHttp({"url": url})  # as a host writes it at first
        assert default.client_session_timeout_seconds == 5
        result = await run_agent(model, default, "Book me two nights from 1 December.")
        await anyio.sleep(2)  # the person's answer is in by now
    # After 5 s the SDK gives up on the call: the model reads a failure, with no reason...
    assert result.final_output == (
        "tool said: An error occurred while running the tool. Please try again."
    )
    # ... the person was asked, and the question was taken back from them when the host gave
    # up (the SDK cancels its request); the upstream saw the call and never an answer.
    assert (renderer.asked, renderer.answered) == (1, 0)
    assert [kind for kind, _ in upstream_view(tmp_path)] == ["call"]
