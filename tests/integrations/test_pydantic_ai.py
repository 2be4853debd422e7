"""A pydantic-ai ``Agent`` as the host, through :mod:`mcp_elicit.integrations.pydantic_ai`: its
own model with no LLM behind it (``FunctionModel``: no network, no key) calls tools on the
real server processes the fastmcp tests start over stdio.

What is checked: a form's answer reaches the tool and the tool's result the model; "open this
link first" (-32042) is taken through consent, the server's completion notice and one retry
before the model sees anything (no ``ModelRetry``); a decline and a cancel reach the tool; a
link the policy blocks never opens; the person's time is not the call's; the audit log has
each step.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import fastmcp
import mcp_types
import pytest
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from mcp_elicit.client import ElicitationHandler, UrlPrompt
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient, FastMCPHandler
from mcp_elicit.integrations.pydantic_ai import ElicitingMCPToolset
from tests.client_support import RecordingRenderer
from tests.integrations.fastmcp_support import (
    STAY,
    Opener,
    PatientRenderer,
    audit_events,
    handler_for,
    quick_start,
    secret_server,
    the_booking_was_asked_and_recorded,
    type_on_page,
)
from tests.peer_servers.secret_server import Browser

pytestmark = pytest.mark.anyio


def calls_once(tool: str) -> FunctionModel:
    """A model that calls ``tool`` once, then answers with what it got back (or, given a retry
    prompt instead, says so)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        for part in last.parts:
            if isinstance(part, ToolReturnPart) and part.outcome == "success":
                return ModelResponse(parts=[TextPart(f"tool said: {part.model_response_str()}")])
            if isinstance(part, ToolReturnPart):  # ModelRetry, or a failure
                said = part.model_response_str(wrap_if_error=False)
                return ModelResponse(parts=[TextPart(f"asked to retry: {said}")])
        return ModelResponse(parts=[ToolCallPart(tool, {})])

    return FunctionModel(respond)


def retries(sent: list[Any]) -> list[Any]:
    """What the model was sent instead of a result: pydantic-ai 2.68 sends a tool's
    ``ModelRetry`` as its ``ToolReturnPart`` with ``outcome="retried"``."""
    return [
        p
        for p in sent
        if isinstance(p, RetryPromptPart)
        or (isinstance(p, ToolReturnPart) and p.outcome != "success")
    ]


async def run_agent(toolset: MCPToolset[Any], tool: str) -> tuple[str, list[Any]]:
    """The agent's final text and every part the model was sent."""
    agent = Agent(calls_once(tool), toolsets=[toolset])
    result = await agent.run(f"use {tool}")
    sent = [p for m in result.all_messages() if isinstance(m, ModelRequest) for p in m.parts]
    return result.output, sent


@pytest.mark.slow
async def test_the_form_is_answered_and_the_tools_result_reaches_the_model(
    tmp_path: Path,
) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}])
    handler, log = handler_for(renderer)
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(quick_start(tmp_path), handler)
    output, sent = await run_agent(toolset, "book")
    assert output == "tool said: Booked 2 night(s) from 2026-12-01 for Ada."
    assert not retries(sent)
    the_booking_was_asked_and_recorded(renderer, log)


@pytest.mark.slow
async def test_open_this_link_first_is_handled_before_the_model_sees_it(tmp_path: Path) -> None:
    # -32042 on 2025-11-25: consent, the link opened, the person enters the key on the page,
    # the server's completion notice, the call once more; the model gets the tool's result.
    opener = Opener()
    renderer = PatientRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"service-{uuid.uuid4().hex}"
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        secret_server(tmp_path), handler, client_options={"mode": "legacy"}
    )
    person = Browser(None)
    try:
        async with anyio.create_task_group() as tasks:

            async def enter_the_key() -> None:
                await person.enter(await opener.next_url(), secret)

            tasks.start_soon(enter_the_key)
            output, sent = await run_agent(toolset, "connect_later")
    finally:
        await person.aclose()
    assert output.startswith(f"tool said: ok: key ending in {secret[-4:]}")
    assert not retries(sent)  # no ModelRetry
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.required_by == "connect_later"
    assert len(opener.urls) == 1
    (event,) = audit_events(log)
    assert event["required_by"] == "connect_later" and event["outcome"] == "accept"
    assert event["completed_by"] == "server"  # notifications/elicitation/complete, read
    assert secret not in log.getvalue() + output


@pytest.mark.slow
async def test_a_declined_link_first_reaches_the_model_as_pydantic_ais_retry(
    tmp_path: Path,
) -> None:
    # What pydantic-ai decides (docs/frameworks.md): the server's -32042, left when the person
    # declines, becomes ModelRetry; the model reads the server's message.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "decline"}])
    handler, log = handler_for(renderer, opener)
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        secret_server(tmp_path), handler, client_options={"mode": "legacy"}
    )
    output, sent = await run_agent(toolset, "connect_later")
    assert output.startswith("asked to retry: This request needs you to open a link first.")
    (retried,) = retries(sent)
    assert retried.outcome == "retried"
    assert opener.urls == []
    (event,) = audit_events(log)
    assert event["outcome"] == "decline" and event["required_by"] == "connect_later"


@pytest.mark.slow
async def test_without_the_toolset_open_this_link_first_reaches_the_model(tmp_path: Path) -> None:
    # Why ElicitingMCPToolset exists (issue 28): MCPToolset on a fastmcp Client with only an
    # elicitation handler gives the model -32042 as ModelRetry; nobody is asked.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, _ = handler_for(renderer, opener)
    answers = FastMCPHandler(handler, local=True)
    client = fastmcp.Client(
        secret_server(tmp_path),
        elicitation_handler=answers,
        message_handler=answers.on_message,
        mode="legacy",
    )
    output, sent = await run_agent(MCPToolset(client), "connect_later")
    assert output == "asked to retry: This request needs you to open a link first."
    assert [p.outcome for p in retries(sent)] == ["retried"]
    assert renderer.prompts == [] and opener.urls == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("decline", "Nothing booked (Declined())."),
        ("cancel", "Nothing booked (Cancelled(reason=None))."),
    ],
)
async def test_a_decline_or_a_cancel_reaches_the_tool(
    tmp_path: Path, action: str, said: str
) -> None:
    renderer = RecordingRenderer([{"action": action}])
    handler, log = handler_for(renderer)
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(quick_start(tmp_path), handler)
    output, sent = await run_agent(toolset, "book")
    assert output == f"tool said: {said}"
    assert not retries(sent)  # the tool's own answer, not a failure
    assert [e["outcome"] for e in audit_events(log)] == [action]


@pytest.mark.slow
async def test_a_blocked_link_never_opens(tmp_path: Path) -> None:
    # Said not to be local, the stdio server's http://127.0.0.1 page is blocked.
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        quick_start(tmp_path), handler, local=False
    )
    output, _ = await run_agent(toolset, "connect_weather")
    assert output.startswith("tool said: Not connected (")
    assert opener.urls == [] and renderer.prompts == []  # nobody asked, nothing opened
    (notice,) = renderer.notices
    assert notice.level == "error" and "Blocked a link" in notice.text
    (event,) = audit_events(log)
    assert event["outcome"] == "cancel" and event["why"] == "url-blocked"
    assert event["url_verdict"] == "block"


@pytest.mark.slow
async def test_the_person_waiting_does_not_spend_the_calls_timeout(tmp_path: Path) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}], delay=1.5)
    handler, _ = handler_for(renderer)
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        quick_start(tmp_path), handler, timeout=1.0
    )
    output, _ = await run_agent(toolset, "book")
    assert output.startswith("tool said: Booked 2 night(s)")


@pytest.mark.slow
@pytest.mark.browser
async def test_the_secret_typed_on_the_hosted_page_reaches_the_tool(tmp_path: Path) -> None:
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"weather-{uuid.uuid4().hex}"
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(quick_start(tmp_path), handler)
    # The server lives until the person has seen "Saved": the agent's run alone would stop
    # it as soon as the tool returned, before the browser followed the page's redirect.
    async with toolset, anyio.create_task_group() as tasks:

        async def person() -> None:
            await type_on_page(await opener.next_url(), "WEATHER_API_KEY", secret)

        tasks.start_soon(person)
        output, sent = await run_agent(toolset, "connect_weather")
    assert output == f"tool said: Connected ({len(secret)} characters)."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.url.startswith("http://127.0.0.1:")
    assert prompt.verdict.verdict.value == "warn"  # local development, said so
    (event,) = audit_events(log)
    assert event["mode"] == "url" and event["outcome"] == "accept"
    assert secret not in log.getvalue() + repr(sent) + repr(renderer.prompts)


# -- without a server process ----------------------------------------------------------------


def test_the_client_is_ours_and_a_stdio_server_is_local(tmp_path: Path) -> None:
    handler = ElicitationHandler(RecordingRenderer([]))
    script = tmp_path / "server.py"
    script.write_text("")
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(script, handler, id="local")
    assert isinstance(toolset.client, ElicitingFastMCPClient)
    assert toolset.client.local and toolset.handler is handler
    assert toolset.id == "local"
    remote: ElicitingMCPToolset[Any] = ElicitingMCPToolset("http://127.0.0.1:9/mcp", handler)
    assert not remote.client.local


async def test_completion_notices_and_list_changes_are_both_read() -> None:
    # A pre-built client loses MCPToolset's cache invalidation; the toolset puts it back,
    # after the handler has read completion notices, and before the host's own handler.
    handler = ElicitationHandler(RecordingRenderer([]))
    seen: list[Any] = []

    async def mine(message: Any) -> None:
        seen.append(message)

    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        "http://127.0.0.1:9/mcp", handler, message_handler=mine
    )
    toolset._cached_tools = []
    changed = mcp_types.ToolListChangedNotification()
    await toolset.client._on_message(changed)
    assert toolset._cached_tools is None and seen == [changed]
    waiting = handler.completions.expect("e-1")
    complete = mcp_types.ElicitCompleteNotification(
        params=mcp_types.ElicitCompleteNotificationParams(elicitation_id="e-1")
    )
    await toolset.client._on_message(complete)
    assert waiting.is_set() and seen == [changed, complete]


def test_a_sampling_model_still_goes_to_the_client() -> None:
    # MCPToolset refuses sampling_model beside a pre-built client; the toolset sets it after.
    model = TestModel()
    handler = ElicitationHandler(RecordingRenderer([]))
    toolset: ElicitingMCPToolset[Any] = ElicitingMCPToolset(
        "http://127.0.0.1:9/mcp", handler, sampling_model=model
    )
    assert toolset.sampling_model is model
