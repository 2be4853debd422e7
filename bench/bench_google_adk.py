"""Benchmark 16: Google ADK's ``McpToolset``, one tool call with one form elicitation, with our
``ElicitationHandler`` as its ``elicitation_callback`` vs a bare SDK callback.

ADK (2.13) reaches MCP servers through ``google.adk.tools.mcp_tool.McpToolset``, built on the
official SDK's ``ClientSession`` with the handshake (so 2025-11-25 only: ADK does not act on a
2026-07-28 ``InputRequiredResult``), and takes the SDK's ``elicitation_callback``. The SAME
official-SDK server (``tests/peer_servers/numbered_server.py``, tool ``ask``) is reached by two
toolsets, each with its own session (a stdio subprocess each, or the one Streamable HTTP
server), kept open:

- **ours**: ``McpToolset(connection_params=..., elicitation_callback=handler)``, ``handler`` an
  ``ElicitationHandler(AcceptingRenderer(), policy=Policy(rate_limit=None))``: the whole
  pipeline, the handler used as the SDK's callback (no ADK adapter of ours is involved);
- **anchor**: the same toolset with a bare callback returning
  ``ElicitResult(action="accept", content={"value": ...})`` straight away.

Two ways to drive it, each timed interleaved (``_timing.side_by_side``) on an event loop in a
helper thread:

- **tool** (the target): the toolset's ``ask`` tool's ``run_async(args={"n": 7},
  tool_context=...)`` directly (ADK's tool layer, session pool and the SDK call; the context
  built once on an in-memory ADK session);
- **agent** (information): a whole ADK run, ``InMemoryRunner(LlmAgent(model=Scripted(),
  tools=[toolset]))``, ``Scripted`` a ``BaseLlm`` with no LLM that calls ``ask(n=7)`` and then
  answers with the tool's text; a new ADK session per run (history would grow otherwise). An
  ADK run costs tens of milliseconds of CPU (events, telemetry, the session service) around a
  round trip of a few, so it shows that the handler's cost disappears under an agent rather
  than measuring it.

Also printed, for scale: what the handler costs in-process per elicitation as the SDK's
callback (no I/O), against each bare round trip.

Target (tool): ours within 5 % of the bare callback, i.e. ours/bare <= 1.05 (printed as
anchor/ours >= 0.95x, the benchmarks' convention).
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from _adapters import (
    EXPECTED,
    N,
    accepting_handler,
    bare_sdk_callback,
    compare,
    round_trips,
    sdk_handler_cost_ns,
)
from _servers import http_server, stdio_params
from _timing import DEFAULT_LOOP_MS, DEFAULT_REPEATS, Contender, Loop, Report, Result, fmt_ns
from anyio.from_thread import BlockingPortal, start_blocking_portal

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # ADK's experimental-feature warnings, at import
    from google.adk.agents import LlmAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.mcp_tool import (
        McpToolset,
        StdioConnectionParams,
        StreamableHTTPConnectionParams,
    )
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types as genai

TITLE = "Benchmark 16: Google ADK McpToolset, one tool call + one form elicitation (warm)"
ERA = "2025-11-25"  # the only one ADK's ClientSession reaches
OURS = "ours: McpToolset + ElicitationHandler"
BARE = "anchor: McpToolset + bare SDK callback"
APP, USER = "bench", "bench-user"
# A tool round trip is a few ms: twice benchmark 14's rounds (84 of ~37 ms), the target's
# comparison. An agent run is tens of ms, one per run: benchmark 14's 42 rounds (information).
TOOL_ROUNDS_SCALE = 12
AGENT_ROUNDS_SCALE = 6
CONNECT_TIMEOUT = 60.0


def _text_of_tool_result(result: Any) -> str:
    """The text of ``McpTool.run_async``'s result (the SDK's result dumped to a dict)."""
    if not isinstance(result, dict) or result.get("isError"):
        return f"(an error: {result!r})"
    return str(result["content"][0]["text"])


class Scripted(BaseLlm):
    """A model with no LLM behind it: calls ``ask(n=7)``, then answers with its text."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        for part in last.parts or ():
            if part.function_response is not None:
                text = _text_of_tool_result(part.function_response.response)
                yield LlmResponse(
                    content=genai.Content(role="model", parts=[genai.Part(text=text)])
                )
                return
        call = genai.FunctionCall(name="ask", args={"n": N})
        yield LlmResponse(
            content=genai.Content(role="model", parts=[genai.Part(function_call=call)])
        )


def connection(url: str | None) -> StdioConnectionParams | StreamableHTTPConnectionParams:
    """ADK's connection parameters, with 60 s to connect (its 5 s default is too short for a
    stdio server to import the SDK on a loaded machine; over stdio it is also the time allowed
    for each response, of which a round trip takes milliseconds)."""
    if url is None:
        return StdioConnectionParams(server_params=stdio_params(), timeout=CONNECT_TIMEOUT)
    return StreamableHTTPConnectionParams(url=url, timeout=CONNECT_TIMEOUT)


@contextlib.asynccontextmanager
async def open_toolset(url: str | None, callback: Any) -> AsyncIterator[McpToolset]:
    """A toolset with its session opened (its tools listed once), closed on the way out."""
    toolset = McpToolset(connection_params=connection(url), elicitation_callback=callback)
    try:
        await toolset.get_tools()
        yield toolset
    finally:
        await toolset.close()


def negotiated(toolset: McpToolset) -> list[str]:
    """The protocol versions of the toolset's pooled sessions."""
    sessions = toolset._mcp_session_manager._sessions.values()
    return [str(session.protocol_version) for session, _, _ in sessions]


def tool_calls(portal: BlockingPortal, toolset: McpToolset) -> Loop:
    """``number`` sequential ``run_async`` calls of the ``ask`` tool, ``ask(7)``."""
    (tool,) = [t for t in portal.call(toolset.get_tools) if t.name == "ask"]
    sessions = InMemorySessionService()
    session = portal.call(lambda: sessions.create_session(app_name=APP, user_id=USER))
    context = ToolContext(
        InvocationContext(session_service=sessions, invocation_id="bench", session=session)
    )

    async def once() -> Any:
        return await tool.run_async(args={"n": N}, tool_context=context)

    return round_trips(portal, once, _text_of_tool_result, EXPECTED)


def agent_runs(portal: BlockingPortal, toolset: McpToolset) -> Loop:
    """``number`` sequential ADK runs (a new ADK session each), each one ``ask(7)``."""
    runner = InMemoryRunner(LlmAgent(name="bench", model=Scripted(), tools=[toolset]), app_name=APP)
    message = genai.Content(role="user", parts=[genai.Part(text="use ask")])

    async def once() -> str:
        session = await runner.session_service.create_session(app_name=APP, user_id=USER)
        said = ""
        async for event in runner.run_async(
            user_id=USER, session_id=session.id, new_message=message
        ):
            if event.content and event.content.parts and event.content.parts[0].text:
                said = event.content.parts[0].text
        return said

    return round_trips(portal, once, str, EXPECTED)


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    # ADK logs a warning per model turn without token counts (ours has none to give).
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    with start_blocking_portal() as portal:
        own = portal.call(sdk_handler_cost_ns)
    print(f"  handler as the SDK's callback, in-process: {fmt_ns(own)} per elicitation (no I/O)")
    with start_blocking_portal() as portal, http_server() as url, warnings.catch_warnings():
        # fastmcp's deprecation warnings for the SDK 1.x field names ADK reads.
        warnings.filterwarnings("ignore", "Accessing `Tool")
        for transport, target in (("stdio", None), ("http", url)):
            with (
                portal.wrap_async_context_manager(
                    open_toolset(target, accepting_handler())
                ) as ours,
                portal.wrap_async_context_manager(open_toolset(target, bare_sdk_callback)) as bare,
            ):
                versions = (negotiated(ours), negotiated(bare))
                if versions != ([ERA], [ERA]):
                    raise AssertionError(f"expected one {ERA} session each, got {versions}")
                label = f"{ERA} {transport}"
                compare(
                    report,
                    f"ADK tool call {label}: ours vs bare callback",
                    Contender(f"{OURS} (tool, {label})", tool_calls(portal, ours)),
                    Contender(f"{BARE} (tool, {label})", tool_calls(portal, bare)),
                    repeats=repeats,
                    loop_ms=loop_ms,
                    own_ns=own,
                    rounds_scale=TOOL_ROUNDS_SCALE,
                )
                compare(
                    report,
                    f"ADK agent run {label}: ours vs bare callback",
                    Contender(f"{OURS} (agent, {label})", agent_runs(portal, ours)),
                    Contender(f"{BARE} (agent, {label})", agent_runs(portal, bare)),
                    repeats=repeats,
                    loop_ms=loop_ms,
                    own_ns=own,
                    target=None,
                    rounds_scale=AGENT_ROUNDS_SCALE,
                )
    return report.results


if __name__ == "__main__":
    run()
