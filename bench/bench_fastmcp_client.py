"""Benchmark 14: fastmcp's ``Client``, one tool call with one form elicitation, round trip, with
our adapter vs fastmcp's own bare ``elicitation_handler``.

The SAME official-SDK server (``tests/peer_servers/numbered_server.py``, tool ``ask``: one
form question, in both eras) is called by two fastmcp clients, each connected once (its own
transport: a stdio subprocess each, or the one Streamable HTTP server) and kept warm:

- **ours**: ``ElicitingFastMCPClient(transport, ElicitationHandler(AcceptingRenderer(),
  policy=Policy(rate_limit=None)))`` (no audit log, no rate limit): the whole pipeline (the
  request checked, the form built and linted, the answer validated, the result built) and the
  adapter's own steps (the "open this link first" wrapper, fastmcp's types);
- **anchor**: ``fastmcp.Client(transport, elicitation_handler=bare)``, where ``bare`` returns
  ``{"value": ...}`` straight away.

Both answer ``{"value": "answer-<n>"}`` for ``ask(n)``. For each era (2025-11-25: fastmcp
``mode="legacy"``; 2026-07-28: ``mode="auto"``) and transport, the two are timed interleaved
(``_timing.side_by_side``) on an event loop in a helper thread, the elapsed time taken inside
the loop around ``number`` sequential ``call_tool``s.

Also printed, for scale: what the adapter and the handler cost in-process per elicitation (no
I/O; the same request, answered 2,000 times), against the bare round trip.

Target: ours within 5 % of fastmcp's bare handler, i.e. ours/bare <= 1.05 (printed as
anchor/ours >= 0.95x, the benchmarks' convention).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import fastmcp
import mcp_types
from _servers import AcceptingRenderer, http_server, number_of, reply_for
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    fmt_ns,
    paired_ratio,
    side_by_side,
)
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastmcp.client.transports import StdioTransport

from mcp_elicit.client import ElicitationHandler, Policy
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient, FastMCPHandler

TITLE = "Benchmark 14: fastmcp Client, tool call + one form elicitation, round trip (warm)"
MAX_SLOWDOWN = 1.05  # ours/bare
TARGET = 1 / MAX_SLOWDOWN  # anchor/ours, the convention of Result
# As in bench_client_roundtrip: many short paired runs give a steadier median ratio for a
# round trip across two processes than a few long ones.
ROUNDS_SCALE = 6
RUN_SCALE = 0.5

ERAS = (("2025-11-25", "legacy"), ("2026-07-28", "auto"))
OURS = "ours: ElicitingFastMCPClient + handler"
BARE = "anchor: fastmcp.Client + bare handler"


async def bare_handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
    return {"value": reply_for(number_of(message))}


def stdio_transport() -> StdioTransport:
    """The numbered server as a stdio subprocess of its own (never shared: a kept-alive
    stdio transport keeps the first client's session)."""
    from tests.peer_servers import numbered_server

    return StdioTransport(sys.executable, [str(numbered_server.SCRIPT)], keep_alive=False)


def ours_client(target: Any, mode: str) -> ElicitingFastMCPClient:
    handler = ElicitationHandler(AcceptingRenderer(), policy=Policy(rate_limit=None), opener=None)
    return ElicitingFastMCPClient(target, handler, mode=mode)


def bare_client(target: Any, mode: str) -> fastmcp.Client[Any]:
    return fastmcp.Client(target, mode=mode, elicitation_handler=bare_handler)


def round_trips(
    portal: BlockingPortal, call_tool: Callable[..., Awaitable[Any]], n: int = 7
) -> Loop:
    """``number`` sequential ``ask(n)`` calls, timed inside the event loop, gc off."""
    expected = f"{n}:{reply_for(n)}"

    async def calls(number: int) -> int:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            for _ in range(number):
                await call_tool("ask", {"n": n})
            return time.perf_counter_ns() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    # Each contender must get the right answer before it is timed.
    result = portal.call(call_tool, "ask", {"n": n})
    text = result.content[0].text
    if result.is_error or text != expected:
        raise AssertionError(f"expected {expected!r}, the call returned {text!r}")
    return lambda number: portal.call(calls, number)


class _Session:
    server_info = mcp_types.Implementation(name="numbered-server", version="1")
    protocol_version = "2025-11-25"


class _Context:
    session = _Session()


async def adapter_cost_ns(number: int = 2_000) -> float:
    """Per elicitation, in-process: ``FastMCPHandler`` answering ``ask(7)``'s request."""
    adapter = FastMCPHandler(
        ElicitationHandler(AcceptingRenderer(), policy=Policy(rate_limit=None), opener=None)
    )
    params = mcp_types.ElicitRequestFormParams(
        message="Question 7?",
        requested_schema={
            "type": "object",
            "properties": {"value": {"type": "string", "minLength": 1, "maxLength": 64}},
            "required": ["value"],
        },
    )
    context = _Context()
    for _ in range(number // 10):
        await adapter(params.message, None, params, context)
    start = time.perf_counter_ns()
    for _ in range(number):
        await adapter(params.message, None, params, context)
    return (time.perf_counter_ns() - start) / number


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with start_blocking_portal() as portal:
        own = portal.call(adapter_cost_ns)
    print(f"  adapter + handler in-process: {fmt_ns(own)} per elicitation (no I/O)")
    with start_blocking_portal() as portal, http_server() as url:
        for transport, target in (("stdio", None), ("http", url)):
            for era, mode in ERAS:

                def server() -> Any:
                    return stdio_transport() if target is None else target  # noqa: B023

                with (
                    portal.wrap_async_context_manager(ours_client(server(), mode)) as ours,
                    portal.wrap_async_context_manager(bare_client(server(), mode)) as bare,
                ):
                    if ours.protocol_version != era or bare.protocol_version != era:
                        raise AssertionError(
                            f"asked for {era}: ours got {ours.protocol_version}, "
                            f"bare got {bare.protocol_version}"
                        )
                    label = f"{era} {transport}"
                    contenders = [
                        Contender(f"{OURS} ({label})", round_trips(portal, ours.call_tool)),
                        Contender(f"{BARE} ({label})", round_trips(portal, bare.call_tool)),
                    ]
                    timings = side_by_side(contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE)
                report.timings(timings)
                ours_t, bare_t = (timings[c.label] for c in contenders)
                ratio = paired_ratio(bare_t, ours_t)
                report.add(
                    Result(
                        TITLE,
                        f"fastmcp round trip {label}: ours vs bare handler",
                        ours_t,
                        bare_t,
                        ratio,
                        TARGET,
                        note=(
                            f"ours/bare = {1 / ratio:.3f} (target <= {MAX_SLOWDOWN:.2f}); "
                            f"in-process cost {own / bare_t.median:.1%} of the bare round trip"
                        ),
                    )
                )
    return report.results


if __name__ == "__main__":
    run()
