"""Benchmark 19: one form question answered as a task (the extension) vs the plain retry.

Both on 2026-07-28, on the same server (``_server_tools.py --tasks``: ``Elicitation(...,
tasks=True)``, a stdio subprocess), the same tool ``ours(n)`` (``ask(ctx, Reply,
"Question <n>?")``), the same client (the official SDK's ``mcp.Client(mode="auto")``, one
connection, every request sent raw on its dispatcher with the per-request ``_meta`` by hand;
``_task_raw.py``). What differs is only the path:

- **task** (ours, timed): ``tools/call`` declaring ``io.modelcontextprotocol/tasks`` ->
  ``CreateTaskResult`` -> ``tasks/get`` until ``input_required`` (the question under its key)
  -> ``tasks/update`` with the answer -> ``tasks/get`` until ``completed`` (the result inlined).
  At least four requests; the client polls **at once**, each ``tasks/get`` right after the
  last reply: the server's ``pollIntervalMs`` is a fixed 1,000 ms (``POLL_INTERVAL_MS``, not
  a setting), which a client that obeys it would add to every round trip, and which measures
  nothing of ours. How many ``tasks/get`` a round trip took is printed.
- **plain** (anchor): ``tools/call`` -> ``InputRequiredResult`` -> the call again with
  ``inputResponses`` and ``requestState`` -> the result. Two requests.

Both must return ``"7:answer-7"`` before they are timed (and every round trip is checked).
Timed as benchmark 3 times round trips: side by side, interleaved, 42 runs of ~37 ms, the
event loop in a helper thread, as many round trips per run for both
(``side_by_side(same_number=True)``, calibrated on the slower), medians, paired ratio.

Target: task/plain <= **2.5** (printed as plain/task >= 0.40x). The task path sends at least
twice the requests of the plain one (four against two), and the tool's run hops to the
server's task group and back twice (its start, and its resumption after ``tasks/update``), so
about 2x is its floor; 2.5 allows for the record's bookkeeping and a poll or two more when the
task is still ``working`` as it is read.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Awaitable, Callable

import mcp
from _server_tools import reply_for, stdio_params
from _task_raw import Raw
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    paired_ratio,
    side_by_side,
)
from anyio.from_thread import BlockingPortal, start_blocking_portal
from bench_client_roundtrip import ROUNDS_SCALE, RUN_SCALE
from bench_server_roundtrip import accept_at_once

TITLE = "Benchmark 19: one form question, as a task (tasks extension) vs the plain retry"
MAX_SLOWDOWN = 2.5  # task/plain
TARGET = 1 / MAX_SLOWDOWN  # plain/task, the convention of Result
N = 7


def round_trips(portal: BlockingPortal, one: Callable[[str, int], Awaitable[str]]) -> Loop:
    """``number`` sequential round trips of question ``N``, timed in the event loop, gc off;
    each checked."""
    expected = f"{N}:{reply_for(N)}"

    async def calls(number: int) -> int:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            for _ in range(number):
                if (text := await one("ours", N)) != expected:
                    raise AssertionError(f"expected {expected!r}, got {text!r}")
            return time.perf_counter_ns() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    if (text := portal.call(one, "ours", N)) != expected:
        raise AssertionError(f"expected {expected!r}, the round trip returned {text!r}")

    def loop(number: int) -> int:
        return portal.call(calls, number)

    return loop


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    client = mcp.Client(
        stdio_params(bare=False, tasks=True), mode="auto", elicitation_callback=accept_at_once
    )
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        raw = Raw(connected)
        contenders = [
            Contender(
                "ours: as a task (get, update, get; polls at once) stdio",
                round_trips(portal, raw.as_task),
            ),
            Contender(
                "anchor: plain 2026-07-28 retry (requestState) stdio",
                round_trips(portal, raw.plain),
            ),
        ]
        # How many tasks/get a task round trip takes (outside the timing).
        before = raw.polls
        probes = 50
        for _ in range(probes):
            portal.call(raw.as_task, "ours", N)
        polls = (raw.polls - before) / probes
        timings = side_by_side(
            contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE, same_number=True
        )
    report.timings(timings)
    task_t, plain_t = (timings[c.label] for c in contenders)
    ratio = paired_ratio(plain_t, task_t)
    report.add(
        Result(
            TITLE,
            "round trip 2026-07-28 stdio: as a task vs plain retry",
            task_t,
            plain_t,
            ratio,
            TARGET,
            note=(
                f"task/plain = {1 / ratio:.3f} (target <= {MAX_SLOWDOWN:.2f}); "
                f"{2 + polls:.2f} requests per task round trip ({polls:.2f} tasks/get), 2 plain"
            ),
        )
    )
    return report.results


if __name__ == "__main__":
    run()
