"""Benchmark 4: 1,000 tool calls pending on elicitations at once, over Streamable HTTP.

An official-SDK server (``tests/peer_servers/numbered_server.py``, a subprocess on a free
127.0.0.1 port, a fresh one for each run) has a tool, ``ask_pending(n)``, that asks one form
question with ``ctx.elicit`` (2025-11-25: the request travels on the tool call's own response
stream; the answer is a new POST) and counts how many of its elicitations are outstanding at once.

1. **ours**: one ``ElicitingClient`` starts 1,000 ``call_tool("ask_pending", {"n": i})`` at
   once (one anyio task group). ``handler.handle`` is wrapped by a gate that counts the
   elicitations reaching the client and holds each one until all 1,000 have arrived (the gate
   is outside the handler's one-prompt-at-a-time lock, so it does not deadlock); only then
   are they answered, each with ``answer-<n>``. Every result must be ``"<n>:answer-<n>"``, and
   the server must report 1,000 elicitations outstanding at once.
2. **anchor, same load**: ``mcp.Client`` with a bare callback behind the same gate, given by
   hand an ``httpx2`` client whose pool is unbounded (the fix ``ElicitingClient`` applies), so
   the time of the SDK's own machinery can be told from ours.
3. **the SDK's default client** (``mcp.Client(url, elicitation_callback=...)``, a pool of 100
   connections) with 150 calls and a callback that answers at once: each pending call holds a
   connection and each answer needs one more, so at 99 pending calls the answers wait for a
   connection that never frees. Bounded by ``STALL_WAIT`` s; it prints
   ``SDK default: stalled at N of 150``.

Each contender runs in a fresh Python process of its own (this file, ``--load NAME URL``), so
that its memory figure is not flattered by memory an earlier run freed but the process kept.
Reported: total wall time (first call started to last result), per call, and the client's peak
memory growth (resident set size sampled every 10 ms from ``/proc/self/statm``, minus the size
once connected; ``ru_maxrss`` where there is no ``/proc``). One run per contender (a run takes
seconds); no target: these are reported for information.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp
import mcp_types
from _servers import (
    AcceptingRenderer,
    http_server,
    number_of,
    raise_open_files_limit,
    reply_for,
)
from _timing import DEFAULT_LOOP_MS, DEFAULT_REPEATS, Report, Result, Timing
from mcp.client.streamable_http import streamable_http_client

from mcp_elicit.client import ElicitationHandler, ElicitingClient, Policy

TITLE = "Benchmark 4: 1,000 elicitations pending at once over Streamable HTTP (2025-11-25)"
CALLS = 1_000
STALL_CALLS = 150
STALL_WAIT = 45.0  # s: the SDK's pool timeout is 30 s, then its session dies
LOAD_LIMIT = 180.0  # s: a run of 1,000 that takes longer than this is a failure
ERA = "2025-11-25"
OURS = "ours: ElicitingClient, 1,000 at once"
ANCHOR = "anchor: mcp.Client + unbounded pool by hand, 1,000"


@dataclass
class Load:
    """What one run of concurrent calls did."""

    calls: int
    arrived: int = 0  # elicitations that reached the client
    all_arrived_after: float | None = None  # s after the first call, when the gate opened
    completed: int = 0
    wrong: list[str] = field(default_factory=list)
    seconds: float = 0.0
    rss_growth: int = 0  # bytes
    server_peak: int | None = None
    error: str | None = None


# -- memory ------------------------------------------------------------------------------


def _rss() -> int:
    """Resident set size now, in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class PeakRss:
    """Samples the resident set size while a run lasts; ``growth`` is peak minus start."""

    def __init__(self) -> None:
        self.start = _rss()
        self.peak = self.start
        self.maxrss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    async def sample(self) -> None:
        while True:
            self.peak = max(self.peak, _rss())
            await anyio.sleep(0.01)

    @property
    def growth(self) -> int:
        self.peak = max(self.peak, _rss())
        if self.start:
            return self.peak - self.start
        # No /proc: the high-water mark's growth (KiB on Linux), which may under-count.
        return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - self.maxrss_start) * 1024


# -- the runs ----------------------------------------------------------------------------


class Gate:
    """Holds every elicitation until ``calls`` of them have arrived, then lets all through."""

    def __init__(self, load: Load, started: list[float]) -> None:
        self.load = load
        self.started = started
        self.open = anyio.Event()

    async def wait(self) -> None:
        self.load.arrived += 1
        if self.load.arrived == self.load.calls:
            self.load.all_arrived_after = time.perf_counter() - self.started[0]
            self.open.set()
        await self.open.wait()


async def _load(client: Any, load: Load, started: list[float], tool: str = "ask_pending") -> None:
    async def one(n: int) -> None:
        result = await client.call_tool(tool, {"n": n})
        text = result.content[0].text
        load.completed += 1
        if result.is_error or text != f"{n}:{reply_for(n)}":
            load.wrong.append(f"{n}: {text!r}")

    memory = PeakRss()
    started[0] = time.perf_counter()
    with anyio.fail_after(LOAD_LIMIT):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(memory.sample)
            async with anyio.create_task_group() as calls:
                for n in range(load.calls):
                    calls.start_soon(one, n)
            load.seconds = time.perf_counter() - started[0]
            tasks.cancel_scope.cancel()
    load.rss_growth = memory.growth
    peak = await client.call_tool("pending_peak", {})
    load.server_peak = int(peak.content[0].text)


async def ours(url: str, calls: int = CALLS) -> Load:
    load, started = Load(calls), [0.0]
    gate = Gate(load, started)
    handler = ElicitationHandler(AcceptingRenderer(), policy=Policy(rate_limit=None), opener=None)
    handle = handler.handle

    async def gated(params: Any, asking: Any) -> dict[str, Any]:
        await gate.wait()
        return await handle(params, asking)

    handler.handle = gated  # type: ignore[method-assign]
    async with ElicitingClient(url, handler, protocol=ERA) as client:
        await _load(client, load, started)
    return load


async def sdk_unbounded(url: str, calls: int = CALLS) -> Load:
    load, started = Load(calls), [0.0]
    gate = Gate(load, started)

    async def callback(context: Any, params: Any) -> mcp_types.ElicitResult:
        await gate.wait()
        value = reply_for(number_of(params.message))
        return mcp_types.ElicitResult(action="accept", content={"value": value})

    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=64)
    timeout = httpx2.Timeout(30.0, read=None)
    async with httpx2.AsyncClient(limits=limits, timeout=timeout) as http:
        transport = streamable_http_client(url, http_client=http)
        async with mcp.Client(transport, mode="legacy", elicitation_callback=callback) as client:
            await _load(client, load, started)
    return load


async def sdk_default(url: str, calls: int = STALL_CALLS, wait: float = STALL_WAIT) -> Load:
    """The SDK's default client, a callback that answers at once, at most ``wait`` s."""
    load = Load(calls)

    async def callback(context: Any, params: Any) -> mcp_types.ElicitResult:
        load.arrived += 1
        value = reply_for(number_of(params.message))
        return mcp_types.ElicitResult(action="accept", content={"value": value})

    async def one(client: mcp.Client, n: int) -> None:
        await client.call_tool("ask_pending", {"n": n})
        load.completed += 1

    started = time.perf_counter()
    with anyio.move_on_after(wait) as scope:
        try:
            async with (
                mcp.Client(url, mode="legacy", elicitation_callback=callback) as client,
                anyio.create_task_group() as tasks,
            ):
                for n in range(calls):
                    tasks.start_soon(one, client, n)
        except BaseException as error:  # the session dies with the pool's timeout
            leaves = _leaves(error)
            load.error = ", ".join(sorted({type(e).__name__ for e in leaves}))
    load.seconds = time.perf_counter() - started
    if scope.cancelled_caught and load.error is None:
        load.error = f"still stuck after {wait:g} s (gave up waiting)"
    return load


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


# -- the report --------------------------------------------------------------------------


LOADS: dict[str, Callable[[str], Awaitable[Load]]] = {
    "ours": ours,
    "sdk-unbounded": sdk_unbounded,
    "sdk-default": sdk_default,
}


def in_child(name: str, url: str) -> Load:
    """Run one load in a fresh process; its ``Load`` comes back as JSON on the last line."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--load", name, url],
        capture_output=True,
        text=True,
        timeout=LOAD_LIMIT + STALL_WAIT + 60,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the {name} run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return Load(**json.loads(lines[-1]))


def _describe(label: str, load: Load) -> str:
    arrived = (
        f"all {load.arrived:,} elicitations pending at the client after "
        f"{load.all_arrived_after:.2f} s"
        if load.all_arrived_after is not None
        else f"{load.arrived:,} of {load.calls:,} elicitations reached the client"
    )
    wrong = f"; {len(load.wrong)} WRONG answers, e.g. {load.wrong[:3]}" if load.wrong else ""
    return (
        f"  {label}: {load.completed:,}/{load.calls:,} calls completed in {load.seconds:.2f} s "
        f"({load.seconds / load.calls * 1e3:.2f} ms/call); {arrived}; server saw "
        f"{load.server_peak:,} outstanding at once; client peak RSS growth "
        f"{load.rss_growth / 2**20:.1f} MiB ({load.rss_growth / load.calls / 1024:.0f} KiB/call)"
        f"{wrong}"
    )


def _check(label: str, load: Load) -> None:
    if load.completed != load.calls or load.wrong or load.server_peak != load.calls:
        raise AssertionError(
            f"{label}: {load.completed} of {load.calls} completed, {len(load.wrong)} wrong, "
            f"server peak {load.server_peak}"
        )


def _timing(label: str, load: Load) -> Timing:
    return Timing(label, load.calls, (load.seconds * 1e9 / load.calls,))


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    # Each pending call holds a socket in the client and one in the server, and each answer
    # opens another for a moment.
    print(f"  {raise_open_files_limit(3 * CALLS + 256)}", flush=True)
    # A fresh server for each run, so that neither run inherits the other's warm server.
    with http_server() as url:
        mine = in_child("ours", url)
    print(_describe(OURS, mine), flush=True)
    _check(OURS, mine)
    with http_server() as url:
        theirs = in_child("sdk-unbounded", url)
    print(_describe(ANCHOR, theirs), flush=True)
    _check(ANCHOR, theirs)
    print(
        f"  SDK default client ({STALL_CALLS} calls, callback answering at once, "
        f"waiting at most {STALL_WAIT:g} s) ...",
        flush=True,
    )
    with http_server() as url:
        stalled = in_child("sdk-default", url)
    stall_line = (
        f"SDK default: stalled at {stalled.arrived} of {stalled.calls}"
        if stalled.completed < stalled.calls
        else f"SDK default: did NOT stall ({stalled.completed} of {stalled.calls} completed)"
    )
    print(
        f"  {stall_line} ({stalled.arrived} elicitations reached its callback, "
        f"{stalled.completed} calls completed; after {stalled.seconds:.1f} s: "
        f"{stalled.error or 'no error'})",
        flush=True,
    )
    ours_t, anchor_t = _timing(OURS, mine), _timing(ANCHOR, theirs)
    print()
    report.timings({OURS: ours_t, ANCHOR: anchor_t})
    report.add(
        Result(
            TITLE,
            f"{CALLS:,} pending at once: ours vs SDK + unbounded pool",
            ours_t,
            anchor_t,
            anchor_t.median / ours_t.median,
            None,
            note=(
                f"ours {mine.seconds:.2f} s, peak RSS +{mine.rss_growth / 2**20:.0f} MiB; "
                f"{stall_line}"
            ),
        )
    )
    return report.results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--load", nargs=2, metavar=("NAME", "URL"), help=f"one of {[*LOADS]}")
    args = parser.parse_args()
    if args.load is None:
        run()
        return
    name, url = args.load
    raise_open_files_limit(3 * CALLS + 256)
    load = anyio.run(LOADS[name], url)
    print(json.dumps(dataclasses.asdict(load)), flush=True)


if __name__ == "__main__":
    main()
