"""What the agent-framework adapter benchmarks share (14: fastmcp's ``Client``, 15: pydantic-ai,
16: Google ADK): the target, the loop that times sequential round trips on an event loop in a
helper thread, the handlers on both sides, the adapters' in-process cost, and the comparison
printed for each era and transport.

The server is always ``tests/peer_servers/numbered_server.py`` (``_servers``), tool
``ask(n)``: one form question, answered ``{"value": "answer-<n>"}``.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import mcp_types
from _servers import AcceptingRenderer, number_of, reply_for
from _timing import Contender, Loop, Report, Result, paired_ratio, side_by_side
from anyio.from_thread import BlockingPortal
from fastmcp.client.transports import StdioTransport

from mcp_elicit.client import ElicitationHandler, Policy

MAX_SLOWDOWN = 1.05  # ours/bare
TARGET = 1 / MAX_SLOWDOWN  # anchor/ours, the convention of Result
# As in bench_client_roundtrip: many short paired runs give a steadier median ratio for a
# round trip across two processes than a few long ones.
ROUNDS_SCALE = 6
RUN_SCALE = 0.5

# (the era, fastmcp's ``mode`` that reaches it)
ERAS = (("2025-11-25", "legacy"), ("2026-07-28", "auto"))
N = 7  # every timed call is ask(7)
EXPECTED = f"{N}:{reply_for(N)}"  # what the tool returns for it


def accepting_handler() -> ElicitationHandler:
    """Our whole pipeline, nothing optional: no audit log, no rate limit, no opener."""
    return ElicitationHandler(AcceptingRenderer(), policy=Policy(rate_limit=None), opener=None)


async def bare_fastmcp_handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
    """fastmcp's ``elicitation_handler`` shape, answering straight away."""
    return {"value": reply_for(number_of(message))}


async def bare_sdk_callback(context: Any, params: Any) -> mcp_types.ElicitResult:
    """The official SDK's ``elicitation_callback`` shape, answering straight away."""
    return mcp_types.ElicitResult(
        action="accept", content={"value": reply_for(number_of(params.message))}
    )


def fastmcp_stdio_transport() -> StdioTransport:
    """The numbered server as a stdio subprocess of its own (never shared: a kept-alive
    stdio transport keeps the first client's session)."""
    from tests.peer_servers import numbered_server

    return StdioTransport(sys.executable, [str(numbered_server.SCRIPT)], keep_alive=False)


def round_trips(
    portal: BlockingPortal,
    once: Callable[[], Awaitable[Any]],
    text_of: Callable[[Any], str],
    expected: str = EXPECTED,
) -> Loop:
    """``number`` sequential ``once()`` calls, timed inside the event loop, gc off. The first
    call, before any timing, must give ``expected`` (read by ``text_of``)."""

    async def calls(number: int) -> int:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            for _ in range(number):
                await once()
            return time.perf_counter_ns() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    text = text_of(portal.call(once))
    if text != expected:
        raise AssertionError(f"expected {expected!r}, the call returned {text!r}")
    return lambda number: portal.call(calls, number)


# -- the adapters' own cost, in-process -------------------------------------------------------


def ask_params() -> mcp_types.ElicitRequestFormParams:
    """The request ``ask(7)`` sends."""
    return mcp_types.ElicitRequestFormParams(
        message=f"Question {N}?",
        requested_schema={
            "type": "object",
            "properties": {"value": {"type": "string", "minLength": 1, "maxLength": 64}},
            "required": ["value"],
        },
    )


class _Session:
    server_info = mcp_types.Implementation(name="numbered-server", version="1")
    protocol_version = "2025-11-25"


class _Context:
    """What the SDK's and fastmcp's callbacks read of their context: the session."""

    session = _Session()


async def _per_call_ns(call: Callable[[], Awaitable[object]], number: int) -> float:
    for _ in range(number // 10):
        await call()
    start = time.perf_counter_ns()
    for _ in range(number):
        await call()
    return (time.perf_counter_ns() - start) / number


async def fastmcp_adapter_cost_ns(number: int = 2_000) -> float:
    """Per elicitation, in-process: ``FastMCPHandler`` (what ``ElicitingFastMCPClient`` and so
    ``ElicitingMCPToolset`` install) answering ``ask(7)``'s request."""
    from mcp_elicit.integrations.fastmcp import FastMCPHandler

    adapter = FastMCPHandler(accepting_handler())
    params, context = ask_params(), _Context()
    return await _per_call_ns(lambda: adapter(params.message, None, params, context), number)


async def sdk_handler_cost_ns(number: int = 2_000) -> float:
    """Per elicitation, in-process: ``ElicitationHandler`` as the SDK's callback answering
    ``ask(7)``'s request."""
    handler = accepting_handler()
    params, context = ask_params(), _Context()
    return await _per_call_ns(lambda: handler(context, params), number)  # type: ignore[arg-type]


# -- one comparison ---------------------------------------------------------------------------


def compare(
    report: Report,
    claim: str,
    ours: Contender,
    bare: Contender,
    *,
    repeats: int,
    loop_ms: float,
    own_ns: float,
    target: float | None = TARGET,
    rounds_scale: int = ROUNDS_SCALE,
) -> Result:
    """Time ``ours`` and ``bare`` side by side (``rounds_scale`` x the rounds, half as long
    each, both making as many calls per run), print both, add and return the paired ratio
    bare/ours with ``target``."""
    contenders: Sequence[Contender] = (ours, bare)
    timings = side_by_side(
        contenders, repeats * rounds_scale, loop_ms * RUN_SCALE, same_number=True
    )
    report.timings(timings)
    ours_t, bare_t = timings[ours.label], timings[bare.label]
    ratio = paired_ratio(bare_t, ours_t)
    limit = "no target" if target is None else f"target <= {1 / target:.2f}"
    result = Result(
        report.title,
        claim,
        ours_t,
        bare_t,
        ratio,
        target,
        note=(
            f"ours/bare = {1 / ratio:.3f} ({limit}); "
            f"in-process cost {own_ns / bare_t.median:.1%} of the bare round trip"
        ),
    )
    report.add(result)
    return result
