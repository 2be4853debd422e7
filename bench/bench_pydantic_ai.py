"""Benchmark 15: a pydantic-ai ``Agent`` run whose one tool call asks one form question, with
our toolset vs pydantic-ai's own ``MCPToolset`` and a bare fastmcp ``elicitation_handler``.

The SAME official-SDK server (``tests/peer_servers/numbered_server.py``, tool ``ask``: one
form question, in both eras) is reached by two toolsets, each connected once (its own
transport: a stdio subprocess each, or the one Streamable HTTP server) and kept open:

- **ours**: ``ElicitingMCPToolset(transport, ElicitationHandler(AcceptingRenderer(),
  policy=Policy(rate_limit=None)), client_options={"mode": mode})``: our fastmcp client
  (benchmark 14's ``ElicitingFastMCPClient``) under pydantic-ai, the whole pipeline;
- **anchor**: ``pydantic_ai.mcp.MCPToolset(transport, elicitation_handler=bare)``, the client
  pydantic-ai builds itself, where ``bare`` returns ``{"value": ...}`` straight away; its
  client's ``mode`` is set before it connects (``MCPToolset`` has no option for it, and its
  default, ``auto``, reaches 2026-07-28 only). Both connect with a 60 s ``init_timeout``.

Each round trip is one ``Agent.run`` (a new ``Agent`` per contender, built once) with a
``FunctionModel`` that calls ``ask(n=7)`` once and then answers with the tool's text (as
``tests/integrations/test_pydantic_ai.py``'s ``calls_once``): the model's two turns, the tool
call and its elicitation. No LLM, no network beyond the server. For each era (2025-11-25:
fastmcp ``mode="legacy"``; 2026-07-28: ``mode="auto"``) and transport, the two are timed
interleaved (``_timing.side_by_side``, 84 rounds of ~37 ms: one run each) on an event loop
in a helper thread.

Also printed, for scale: what the adapter and the handler cost in-process per elicitation (no
I/O), against the bare agent run.

Target: ours within 5 % of pydantic-ai's own toolset with a bare handler, i.e. ours/bare <=
1.05 (printed as anchor/ours >= 0.95x, the benchmarks' convention).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from _adapters import (
    ERAS,
    EXPECTED,
    N,
    accepting_handler,
    bare_fastmcp_handler,
    compare,
    fastmcp_adapter_cost_ns,
    fastmcp_stdio_transport,
    round_trips,
)
from _servers import http_server
from _timing import DEFAULT_LOOP_MS, DEFAULT_REPEATS, Contender, Loop, Report, Result, fmt_ns
from anyio.from_thread import BlockingPortal, start_blocking_portal
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_elicit.integrations.pydantic_ai import ElicitingMCPToolset

TITLE = "Benchmark 15: pydantic-ai Agent run, one tool call + one form elicitation (warm)"

OURS = "ours: ElicitingMCPToolset + handler"
BARE = "anchor: MCPToolset + bare handler"
SAID = "tool said: "
# An agent run is tens of ms, one per timed run: twice benchmark 14's rounds for a steady median.
ROUNDS_SCALE = 12
# Connecting only, not timed: pydantic-ai's 5 s default is too short for a stdio server to
# import the SDK on a loaded machine.
INIT_TIMEOUT = 60.0


def calls_ask_once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model: call ``ask(n=7)``, then answer with what it returned."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    for part in last.parts:
        if isinstance(part, ToolReturnPart):
            said = part.model_response_str() if part.outcome == "success" else "(failed)"
            return ModelResponse(parts=[TextPart(SAID + said)])
    return ModelResponse(parts=[ToolCallPart("ask", {"n": N})])


def ours_toolset(target: Any, mode: str) -> ElicitingMCPToolset[None]:
    options = {"mode": mode, "init_timeout": INIT_TIMEOUT}
    return ElicitingMCPToolset(target, accepting_handler(), client_options=options)


def bare_toolset(target: Any, mode: str) -> MCPToolset[None]:
    toolset: MCPToolset[None] = MCPToolset(
        target, elicitation_handler=bare_fastmcp_handler, init_timeout=INIT_TIMEOUT
    )
    toolset.client.mode = mode  # read when it connects
    return toolset


def agent_runs(portal: BlockingPortal, toolset: MCPToolset[None]) -> Loop:
    """``number`` sequential agent runs, each one ``ask(7)``."""
    agent = Agent(FunctionModel(calls_ask_once), toolsets=[toolset])

    def text_of(result: Any) -> str:
        return str(result.output).removeprefix(SAID)

    return round_trips(portal, functools.partial(agent.run, "use ask"), text_of, EXPECTED)


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with start_blocking_portal() as portal:
        own = portal.call(fastmcp_adapter_cost_ns)
    print(f"  adapter + handler in-process: {fmt_ns(own)} per elicitation (no I/O)")
    with start_blocking_portal() as portal, http_server() as url, warnings.catch_warnings():
        # pydantic-ai warns that a modern session never calls an elicitation handler: fastmcp
        # does call it, for an InputRequiredResult (the answer is checked before timing).
        warnings.filterwarnings("ignore", "`elicitation_handler` will never be called")
        for transport, target in (("stdio", None), ("http", url)):
            for era, mode in ERAS:

                def server() -> Any:
                    return fastmcp_stdio_transport() if target is None else target  # noqa: B023

                with (
                    portal.wrap_async_context_manager(ours_toolset(server(), mode)) as ours,
                    portal.wrap_async_context_manager(bare_toolset(server(), mode)) as bare,
                ):
                    versions = (ours.client.protocol_version, bare.client.protocol_version)
                    if versions != (era, era):
                        raise AssertionError(f"asked for {era}: ours, bare got {versions}")
                    label = f"{era} {transport}"
                    compare(
                        report,
                        f"pydantic-ai agent run {label}: ours vs bare handler",
                        Contender(f"{OURS} ({label})", agent_runs(portal, ours)),
                        Contender(f"{BARE} ({label})", agent_runs(portal, bare)),
                        repeats=repeats,
                        loop_ms=loop_ms,
                        own_ns=own,
                        rounds_scale=ROUNDS_SCALE,
                    )
    return report.results


if __name__ == "__main__":
    run()
