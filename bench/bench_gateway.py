"""Benchmark 13: the gateway's overhead per elicitation round trip, and its memory per held call.

**Round trips.** The SAME official-SDK server as benchmark 3 (``numbered_server.py``, tool
``ask``: one ``Resolve(Elicit)`` form question, so it works in both eras) is called by a bare
SDK client (``mcp.Client`` + a callback that answers at once), kept warm, two ways:

- **anchor, direct**: the client connected to the server itself (in the client's own era);
- **ours, through the gateway**: the same client connected to ``mcp-elicit gateway``, which
  speaks the *other* era to the same server, so every round trip is bridged.

Both directions (a 2026-07-28 client in front of a 2025-11-25 upstream: held calls; a
2025-11-25 client in front of a 2026-07-28 upstream: rounds pushed) and both transports
(stdio: the client starts the gateway, which starts the server; Streamable HTTP: each a
process on a loopback port). Timed interleaved, as benchmark 3. Target: through the gateway
within 1.25x of direct (printed as direct/gateway >= 0.80x, the benchmarks' convention).

**Memory per held call.** ``mcp-elicit gateway`` over HTTP in front of the server pinned to
2025-11-25; ``HELD`` 2026-07-28 first rounds sent at once and never answered, so each leaves a
held call (an upstream session of its own with its call waiting on the question). The
gateway's resident set size (``/proc``) before and after, per held call; beside it, for
scale, what the same server holds per pending 2025-11-25 call of a direct client (its own
RSS, the same way). Information, no target.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
import mcp_types
from _servers import http_server, number_of, raise_open_files_limit, reply_for, stdio_params
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Report,
    Result,
    Timing,
    paired_ratio,
    side_by_side,
)
from anyio.from_thread import start_blocking_portal
from bench_client_roundtrip import ROUNDS_SCALE, RUN_SCALE, round_trips
from bench_server_pending import MemoryResult
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from pydantic import TypeAdapter

from mcp_elicit.client.connection import unpooled_http_client

TITLE = "Benchmark 13: the gateway, per elicitation round trip and per held call"
MAX_SLOWDOWN = 1.25  # gateway/direct
TARGET = 1 / MAX_SLOWDOWN
HELD = 200
GATEWAY = [sys.executable, "-m", "mcp_elicit", "gateway"]
# (the client's era, its SDK mode, the era the gateway speaks upstream): the two bridges
# (target), then the same era on both sides over HTTP (for scale: what the hop alone costs).
DIRECTIONS = (("2026-07-28", "auto", "2025-11-25"), ("2025-11-25", "legacy", "2026-07-28"))
RELAYS = (("2025-11-25", "legacy", "2025-11-25"), ("2026-07-28", "auto", "2026-07-28"))


async def bare_callback(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(
        action="accept", content={"value": reply_for(number_of(params.message))}
    )


def gateway_stdio(
    upstream_era: str, server: StdioServerParameters | None = None
) -> StdioServerParameters:
    """``mcp-elicit gateway`` on stdio, starting ``server`` (the numbered server by default)."""
    server = server or stdio_params()
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_elicit",
            "gateway",
            "--upstream-protocol",
            upstream_era,
            "--",
            server.command,
            *server.args,
        ],
        env=dict(os.environ),
    )


def _rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def gateway_http(url: str, upstream_era: str, *options: str) -> Iterator[str]:
    command = [*GATEWAY, "--upstream-protocol", upstream_era, *options, url]
    with http_server(command=command) as found:
        yield found


# HELD calls from anonymous 2026-07-28 clients (one client to the caps): past the defaults.
# The warm-up's calls are still held when the HELD start (nothing answers them), so room for
# twice as many; a session per held call, and room for the lists the SDK's clients fetch.
HELD_CAPS = [
    f"--max-held-calls={2 * HELD}",
    f"--max-held-calls-per-client={2 * HELD}",
    f"--max-upstream-sessions={4 * HELD}",
    f"--max-upstream-sessions-per-client={4 * HELD}",
]


def round_trip_results(report: Report, repeats: int, loop_ms: float) -> None:
    with start_blocking_portal() as portal, http_server() as url:
        for transport, era, mode, upstream_era in [
            *(("stdio", *d) for d in DIRECTIONS),
            *(("http", *d) for d in (*DIRECTIONS, *RELAYS)),
        ]:
            bridged = era != upstream_era
            with contextlib.ExitStack() as stack:
                if transport == "stdio":
                    direct_target: Any = stdio_params()
                    via_target: Any = gateway_stdio(upstream_era)
                else:
                    direct_target = url
                    via_target = stack.enter_context(gateway_http(url, upstream_era))
                direct = stack.enter_context(
                    portal.wrap_async_context_manager(
                        mcp.Client(direct_target, mode=mode, elicitation_callback=bare_callback)
                    )
                )
                via = stack.enter_context(
                    portal.wrap_async_context_manager(
                        mcp.Client(via_target, mode=mode, elicitation_callback=bare_callback)
                    )
                )
                if direct.protocol_version != era or via.protocol_version != era:
                    raise AssertionError(
                        f"asked for {era}: {direct.protocol_version}, {via.protocol_version}"
                    )
                label = f"{era} client, {upstream_era} upstream, {transport}"
                contenders = [
                    Contender(f"gateway ({label})", round_trips(portal, via.call_tool)),
                    Contender(f"direct ({label})", round_trips(portal, direct.call_tool)),
                ]
                timings = side_by_side(contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE)
            report.timings(timings)
            via_t, direct_t = (timings[c.label] for c in contenders)
            ratio = paired_ratio(direct_t, via_t)
            report.add(
                Result(
                    TITLE,
                    f"round trip through the gateway, {label}",
                    via_t,
                    direct_t,
                    ratio,
                    TARGET if bridged else None,
                    note=f"gateway/direct = {1 / ratio:.3f}"
                    + (f" (target <= {MAX_SLOWDOWN:.2f})" if bridged else " (relay, for scale)"),
                )
            )


async def _pending(
    url: str, mode: str, calls: int, answered: anyio.Event, ready: anyio.Event | None = None
) -> float:
    """``calls`` calls of ``ask`` at once, each left pending (2026-07-28: its first round only,
    so the gateway holds it; 2025-11-25: its question unanswered until ``answered``). Returns
    the seconds it took until every one was pending."""
    request = mcp_types.CallToolRequest(
        params=mcp_types.CallToolRequestParams(name="ask", arguments={"n": 1})
    )
    raw = TypeAdapter(dict[str, Any])
    pending = 0
    all_pending = ready or anyio.Event()

    def one_more() -> None:
        nonlocal pending
        pending += 1
        if pending == calls:
            all_pending.set()

    async def wait(context: Any, params: Any) -> mcp_types.ElicitResult:
        one_more()
        await answered.wait()
        return await bare_callback(context, params)

    async def first_round() -> None:
        await client.session.send_request(request, raw)
        one_more()

    async with (
        # Not the SDK's pool of 100: each pending 2025-11-25 call holds a connection open.
        unpooled_http_client() as http,
        mcp.Client(
            streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=wait
        ) as client,
        anyio.create_task_group() as tasks,
    ):
        started = time.perf_counter()
        for _ in range(calls):
            if mode == "auto":
                tasks.start_soon(first_round)
            else:
                tasks.start_soon(client.call_tool, "ask", {"n": 1})
        await all_pending.wait()
        elapsed = time.perf_counter() - started
        await answered.wait()
        tasks.cancel_scope.cancel()
    return elapsed


def _weigh(pid: int, url: str, mode: str, calls: int, settle: float = 1.0) -> tuple[float, float]:
    """Bytes per pending call in process ``pid`` (RSS after a warm-up, then with ``calls``
    pending, settled), and the seconds it took to leave them all pending."""

    async def main() -> tuple[float, float]:
        warm = anyio.Event()
        warm.set()
        await _pending(url, mode, 20, warm)
        before = _rss_of(pid)
        answered, ready = anyio.Event(), anyio.Event()
        took: list[float] = []

        async def leave_pending() -> None:
            took.append(await _pending(url, mode, calls, answered, ready))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(leave_pending)
            with anyio.fail_after(120):
                await ready.wait()
            await anyio.sleep(settle)
            after = _rss_of(pid)
            answered.set()
        return (after - before) / calls, took[0]

    return anyio.run(main)


def _pid_listening(port: str) -> int:
    """The process that listens on 127.0.0.1:``port`` (ours, started by http_server)."""
    wanted = f":{int(port):04X}"
    inodes: set[str] = set()
    with open("/proc/net/tcp", encoding="ascii") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1].endswith(wanted) and fields[3] == "0A":
                inodes.add(fields[9])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(pid)
    raise RuntimeError(f"nothing listens on port {port}")


def memory_result(report: Report, title: str = TITLE) -> None:
    """Memory per held 2025-era call (benchmark 21 reports it too, under its own ``title``)."""
    print(raise_open_files_limit(4 * HELD + 256))
    # Closing 200 clients with calls still pending: the SDK warns of each cancel it cannot
    # deliver to a closed stream, which is what this does on purpose.
    logging.getLogger("mcp.shared.jsonrpc_dispatcher").setLevel(logging.ERROR)
    with http_server() as url:
        server_pid = _pid_listening(url.rsplit(":", 1)[1].split("/")[0])
        direct, direct_s = _weigh(server_pid, url, "legacy", HELD)
        with gateway_http(url, "2025-11-25", *HELD_CAPS) as via:
            gateway_pid = _pid_listening(via.rsplit(":", 1)[1].split("/")[0])
            held, held_s = _weigh(gateway_pid, via, "auto", HELD)
    # The times: to leave one call pending, when HELD are started at once.
    ours = Timing("held through the gateway", HELD, (held_s * 1e9 / HELD,))
    anchor = Timing("pending on the server directly", HELD, (direct_s * 1e9 / HELD,))
    detail = (
        f"{held / 1024:.0f} KiB per held call in the gateway; the server itself holds "
        f"{direct / 1024:.0f} KiB per pending 2025-11-25 call ({HELD} at once)"
    )
    print(f"  {detail}")
    report.add(
        MemoryResult(
            title,
            "memory per held 2025-era call",
            ours,
            anchor,
            direct / held if held > 0 else float("inf"),
            None,
            detail=detail,
        )
    )


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    started = time.monotonic()
    round_trip_results(report, repeats, loop_ms)
    memory_result(report)
    print(f"  ({time.monotonic() - started:.0f} s)")
    return report.results


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    run()
