"""Benchmark 6: one tool call with one form question, round trip, ours vs the SDK, server side.

One server module (``bench/_server_tools.py``) run as two servers, each a subprocess of its
own, so that each contender pays only for its own server:

- **ours**: the server with ``Elicitation(server, key=DeploymentKey.generate(),
  store="memory://")`` installed, tool ``ours(n)``: ``ask(ctx, Reply, "Question <n>?")``
  (a pydantic model with one ``value: str`` field);
- **anchor**: the bare SDK server (``--bare``), the SDK's own way of asking the same
  question: ``ctx.elicit(message, Reply)`` on 2025-11-25 (tool ``sdk_elicit``), and
  ``Resolve(Elicit)`` on 2026-07-28 (tool ``sdk_resolve``, with an ``async`` resolver: the SDK
  runs a plain-function resolver in a worker thread, which would slow the anchor down).

The client is the same for both: the official SDK's ``mcp.Client`` with an elicitation
callback that accepts at once with ``{"value": "answer-<n>"}``, so the difference is the
server's. For every era (2025-11-25: SDK ``mode="legacy"``, the question a standalone
``elicitation/create`` during the call; 2026-07-28: ``mode="auto"``, an ``InputRequiredResult``
and then the call again with the answer) and transport (stdio: a server subprocess per client;
Streamable HTTP: one subprocess per server on a free 127.0.0.1 port), the two are timed
interleaved (``_timing.side_by_side``) on an event loop in a helper thread, as benchmark 3 does.
Each must return ``"7:answer-7"`` before it is timed.

Target: ours within 10 % of the SDK, i.e. ours/SDK <= 1.10 (printed as anchor/ours >= 0.91x).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import mcp
import mcp_types
from _server_tools import http_server, number_of, reply_for, stdio_params
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Report,
    Result,
    paired_ratio,
    side_by_side,
)
from anyio.from_thread import start_blocking_portal
from bench_client_roundtrip import ROUNDS_SCALE, RUN_SCALE, round_trips

TITLE = "Benchmark 6: tool call + one form question, round trip, server side (SDK client)"
MAX_SLOWDOWN = 1.10  # ours/SDK
TARGET = 1 / MAX_SLOWDOWN  # anchor/ours, the convention of Result

# era, SDK client mode, the anchor's tool
ERAS = (("2025-11-25", "legacy", "sdk_elicit"), ("2026-07-28", "auto", "sdk_resolve"))
ANCHOR_WAY = {"sdk_elicit": "ctx.elicit", "sdk_resolve": "Resolve(Elicit)"}


async def accept_at_once(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(
        action="accept", content={"value": reply_for(number_of(params.message))}
    )


def client(target: Any, mode: str) -> mcp.Client:
    return mcp.Client(target, mode=mode, elicitation_callback=accept_at_once)


def calling(connected: mcp.Client, tool: str) -> Callable[..., Awaitable[Any]]:
    """``call_tool`` as ``round_trips`` calls it (``"ask"``), aimed at ``tool``."""

    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        return await connected.call_tool(tool, arguments)

    return call_tool


@contextlib.contextmanager
def http_servers() -> Iterator[tuple[str, str]]:
    """Both servers over Streamable HTTP: (ours, bare) URLs."""
    with http_server(bare=False) as ours, http_server(bare=True) as bare:
        yield ours, bare


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with start_blocking_portal() as portal, http_servers() as (ours_url, bare_url):
        targets = (
            ("stdio", stdio_params(bare=False), stdio_params(bare=True)),
            ("http", ours_url, bare_url),
        )
        for transport, ours_target, bare_target in targets:
            for era, mode, anchor_tool in ERAS:
                with (
                    portal.wrap_async_context_manager(client(ours_target, mode)) as ours,
                    portal.wrap_async_context_manager(client(bare_target, mode)) as bare,
                ):
                    if ours.protocol_version != era or bare.protocol_version != era:
                        raise AssertionError(
                            f"asked for {era}: ours got {ours.protocol_version}, "
                            f"the SDK's got {bare.protocol_version}"
                        )
                    label = f"{era} {transport}"
                    way = ANCHOR_WAY[anchor_tool]

                    contenders = [
                        Contender(
                            f"ours: ask + Elicitation ({label})",
                            round_trips(portal, calling(ours, "ours")),
                        ),
                        Contender(
                            f"anchor: SDK {way} ({label})",
                            round_trips(portal, calling(bare, anchor_tool)),
                        ),
                    ]
                    timings = side_by_side(contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE)
                report.timings(timings)
                ours_t, bare_t = (timings[c.label] for c in contenders)
                ratio = paired_ratio(bare_t, ours_t)
                report.add(
                    Result(
                        TITLE,
                        f"server round trip {label}: ask vs SDK {way}",
                        ours_t,
                        bare_t,
                        ratio,
                        TARGET,
                        note=f"ours/SDK = {1 / ratio:.3f} (target <= {MAX_SLOWDOWN:.2f})",
                    )
                )
    return report.results


if __name__ == "__main__":
    run()
