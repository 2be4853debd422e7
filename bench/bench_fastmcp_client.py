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

import functools
from typing import Any

import fastmcp
from _adapters import (
    ERAS,
    N,
    accepting_handler,
    bare_fastmcp_handler,
    compare,
    fastmcp_adapter_cost_ns,
    fastmcp_stdio_transport,
    round_trips,
)
from _servers import http_server
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    fmt_ns,
)
from anyio.from_thread import BlockingPortal, start_blocking_portal

from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient

TITLE = "Benchmark 14: fastmcp Client, tool call + one form elicitation, round trip (warm)"

OURS = "ours: ElicitingFastMCPClient + handler"
BARE = "anchor: fastmcp.Client + bare handler"


def ours_client(target: Any, mode: str) -> ElicitingFastMCPClient:
    return ElicitingFastMCPClient(target, accepting_handler(), mode=mode)


def bare_client(target: Any, mode: str) -> fastmcp.Client[Any]:
    return fastmcp.Client(target, mode=mode, elicitation_handler=bare_fastmcp_handler)


def tool_calls(portal: BlockingPortal, client: fastmcp.Client[Any]) -> Loop:
    """``number`` sequential ``ask(7)`` calls."""

    def text_of(result: Any) -> str:
        return "(an error)" if result.is_error else str(result.content[0].text)

    return round_trips(portal, functools.partial(client.call_tool, "ask", {"n": N}), text_of)


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with start_blocking_portal() as portal:
        own = portal.call(fastmcp_adapter_cost_ns)
    print(f"  adapter + handler in-process: {fmt_ns(own)} per elicitation (no I/O)")
    with start_blocking_portal() as portal, http_server() as url:
        for transport, target in (("stdio", None), ("http", url)):
            for era, mode in ERAS:

                def server() -> Any:
                    return fastmcp_stdio_transport() if target is None else target  # noqa: B023

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
                    compare(
                        report,
                        f"fastmcp round trip {label}: ours vs bare handler",
                        Contender(f"{OURS} ({label})", tool_calls(portal, ours)),
                        Contender(f"{BARE} ({label})", tool_calls(portal, bare)),
                        repeats=repeats,
                        loop_ms=loop_ms,
                        own_ns=own,
                    )
    return report.results


if __name__ == "__main__":
    run()
