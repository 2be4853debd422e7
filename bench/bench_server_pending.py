"""Benchmark 7: what a pending question costs the server's memory.

On 2026-07-28 a question is a result: ``ask`` stops the tool and ``Elicitation``'s middleware
returns an ``InputRequiredResult`` whose answers so far travel, sealed, in ``requestState``;
the client holds it until the person answers and then calls again. The server should
therefore hold nothing per pending question. This measures it, on the server of
``bench/_server_tools.py`` (a stdio subprocess, a fresh one per contender).

- **ours, 2026-07-28** (the target): the server with ``Elicitation`` (``store="memory://"``),
  tool ``ours(n)``. The client is the official SDK's ``mcp.Client(mode="auto")``, driven by
  hand: ``client.session.call_tool(..., allow_input_required=True)`` returns the
  ``InputRequiredResult`` instead of answering it, and the client keeps every one (10,000
  questions asked, none answered: 10,000 ``requestState`` issued and outstanding). After
  ``WARM_UP`` such calls, the server's ``memory(trace=True)`` starts ``tracemalloc`` and
  reports the baseline; then the questions are asked by ``WORKERS`` concurrent callers, with
  the server's ``memory()`` (traced bytes still alive after ``gc.collect()``, and the resident
  set size) read at 1,000 and at 10,000 outstanding. Bytes per pending question =
  (traced then - baseline) / outstanding, at both counts, so a cost that grows with the number
  outstanding shows. At the end the first and the last question are answered (the call again
  with the answer and the state): each must return ``"<n>:answer-<n>"``, so the 10,000 were
  real, live questions, although the server kept nothing of them.
- **the SDK, 2026-07-28** (information): the same on the bare SDK server, tool
  ``sdk_resolve(n)`` (``Resolve(Elicit)``), at ``SDK_CHECKPOINTS`` outstanding (fewer: the
  SDK's server path builds a JSON Schema per question and allocates much more, so under
  ``tracemalloc`` it is about 1.5x slower than ours, and the benchmark must stay well under
  two minutes).
- **the push era, 2025-11-25** (information): a question is a request the tool call awaits,
  so each pending one holds a task, its cancel scope and its response stream in the server.
  ``PUSH_PENDING`` calls at once (``mode="legacy"``), a callback that holds every question
  until all have reached the client, then the server's ``memory()`` (and its count of calls
  waiting, which must be ``PUSH_PENDING``), then all are answered and checked, and memory is
  read once more. Both ``ours(n)`` (``ask`` on the server with ``Elicitation``) and the SDK's
  ``sdk_elicit(n)`` (``ctx.elicit`` on the bare server).

Target: ours on 2026-07-28 under **1 KiB** per pending question at 10,000 outstanding
(``LIMIT``: a noisy-but-honest threshold; the figure itself is reported).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp
import mcp_types
from _server_tools import reply_for, stdio_params
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Report,
    Result,
    Timing,
    fmt_ns,
    fmt_ratio,
)
from bench_server_roundtrip import accept_at_once

TITLE = "Benchmark 7: server memory per pending question (2026-07-28 and 2025-11-25)"
CHECKPOINTS = (1_000, 10_000)  # outstanding questions at which the server is weighed (ours)
SDK_CHECKPOINTS = (1_000, 3_000)
PUSH_PENDING = 1_000
WARM_UP = 200  # questions asked before tracing starts (caches, pools, free lists)
WORKERS = 64  # concurrent callers (the server is the bottleneck; more callers keep it busy)
LIMIT = 1024  # bytes per pending question (ours, 2026-07-28)
TIME_LIMIT = 150.0  # s, per contender: a run this slow is a failure


@dataclass
class Weighing:
    """What one contender's run saw: the server's memory at each count of pending questions."""

    label: str
    counts: list[int] = field(default_factory=list)  # outstanding at each reading, 0 first
    traced: list[int] = field(default_factory=list)  # bytes (tracemalloc, after gc.collect)
    rss: list[int] = field(default_factory=list)  # bytes
    tasks: list[int] = field(default_factory=list)  # live asyncio tasks in the server
    seconds: float = 0.0  # time to ask them all
    asked: int = 0
    state_chars: float = 0.0  # mean requestState length (2026-07-28): what the client holds
    released: dict[str, int] = field(default_factory=dict)  # push era: memory once answered

    def per_pending(self, index: int = -1) -> float:
        """Bytes per pending question at reading ``index`` (traced growth / outstanding)."""
        return (self.traced[index] - self.traced[0]) / self.counts[index]

    def rss_per_pending(self, index: int = -1) -> float:
        return (self.rss[index] - self.rss[0]) / self.counts[index]

    def timing(self) -> Timing:
        return Timing(self.label, self.asked, (self.seconds * 1e9 / self.asked,))

    def marginal(self) -> float:
        """Bytes per question between the first reading and the last: what each question
        asked after the first checkpoint added (0 if nothing grows with the count)."""
        return (self.traced[-1] - self.traced[1]) / (self.counts[-1] - self.counts[1])

    def lines(self) -> list[str]:
        lines = [
            f"  {self.label}: {self.asked:,} asked in {self.seconds:.1f} s "
            f"({fmt_ns(self.seconds * 1e9 / self.asked)}/question under tracemalloc); server "
            f"baseline: traced {self.traced[0]:,} B, RSS {self.rss[0] / 2**20:.1f} MiB, "
            f"{self.tasks[0]} tasks"
        ]
        for i, count in enumerate(self.counts[1:], start=1):
            lines.append(
                f"    {count:>6,} pending: traced {self.traced[i] - self.traced[0]:+,} B = "
                f"{self.per_pending(i):,.1f} B/question; RSS "
                f"{self.rss[i] - self.rss[0]:+,} B = {self.rss_per_pending(i):,.0f} B/question; "
                f"{self.tasks[i]:,} tasks"
            )
        if len(self.counts) > 2:
            lines.append(
                f"    from {self.counts[1]:,} to {self.counts[-1]:,} pending: "
                f"{self.marginal():+,.1f} B/question traced, "
                f"{(self.rss[-1] - self.rss[1]) / (self.counts[-1] - self.counts[1]):+,.0f} "
                "B/question RSS"
            )
        if self.state_chars:
            lines.append(
                f"    the client holds the state: {self.state_chars:.0f} chars of requestState "
                "per question; the first and the last question, answered at the end: right"
            )
        if self.released:
            lines.append(
                f"    once all answered: traced {self.released['traced'] - self.traced[0]:+,} B, "
                f"{self.released['tasks']} tasks"
            )
        return lines


def answer(n: int) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"value": reply_for(n)})


def text_of(result: Any) -> str:
    if not isinstance(result, mcp_types.CallToolResult):
        raise AssertionError(f"expected a CallToolResult, got {type(result).__name__}")
    block = result.content[0]
    return block.text if isinstance(block, mcp_types.TextContent) else repr(block)


async def weigh(client: mcp.Client, weighing: Weighing, outstanding: int, **kw: Any) -> None:
    raw = json.loads(text_of(await client.call_tool("memory", kw)))
    if raw["traced"] is None:
        raise AssertionError("the server is not tracing (memory(trace=True) was not called)")
    weighing.counts.append(outstanding)
    weighing.traced.append(raw["traced"])
    weighing.rss.append(raw["rss"])
    weighing.tasks.append(raw["tasks"])


async def parallel(numbers: range, one: Callable[[int], Awaitable[None]]) -> None:
    """``one(n)`` for every ``n``, by ``WORKERS`` concurrent callers."""
    pending = iter(numbers)

    async def worker() -> None:
        for n in pending:
            await one(n)

    async with anyio.create_task_group() as tasks:
        for _ in range(WORKERS):
            tasks.start_soon(worker)


# -- 2026-07-28: questions are results -----------------------------------------------------


async def rounds_era(
    label: str, *, bare: bool, tool: str, checkpoints: tuple[int, ...]
) -> Weighing:
    weighing = Weighing(label)
    held: dict[int, mcp_types.InputRequiredResult] = {}
    async with mcp.Client(
        stdio_params(bare=bare), mode="auto", elicitation_callback=accept_at_once
    ) as client:
        if client.protocol_version != "2026-07-28":
            raise AssertionError(f"asked for 2026-07-28, got {client.protocol_version}")
        # The tool must work before it is weighed: one whole question, answered.
        if (text := text_of(await client.call_tool(tool, {"n": 7}))) != "7:answer-7":
            raise AssertionError(f"{label}: expected '7:answer-7', the call returned {text!r}")
        session = client.session

        async def ask_one(n: int, keep: bool = True) -> None:
            result = await session.call_tool(tool, {"n": n}, allow_input_required=True)
            if not isinstance(result, mcp_types.InputRequiredResult):
                raise AssertionError(f"{label}: question {n} got {type(result).__name__}")
            [request] = (result.input_requests or {}).values()
            message = getattr(request.params, "message", None)
            if message != f"Question {n}?" or not result.request_state:
                raise AssertionError(f"{label}: question {n} came back as {result!r}")
            if keep:
                held[n] = result

        for n in range(WARM_UP):
            await ask_one(-1 - n, keep=False)
        await weigh(client, weighing, 0, trace=True)
        started = time.perf_counter()
        done = 0
        with anyio.fail_after(TIME_LIMIT):
            for checkpoint in checkpoints:
                await parallel(range(done, checkpoint), ask_one)
                done = checkpoint
                await weigh(client, weighing, len(held))
        weighing.seconds = time.perf_counter() - started
        weighing.asked = len(held)
        weighing.state_chars = sum(len(r.request_state or "") for r in held.values()) / len(held)
        # Live questions: the first and the last asked are answered now, with their state.
        for n in (0, done - 1):
            [key] = held[n].input_requests or {}
            result = await session.call_tool(
                tool,
                {"n": n},
                input_responses={key: answer(n)},
                request_state=held[n].request_state,
            )
            if (text := text_of(result)) != f"{n}:answer-{n}":
                raise AssertionError(f"{label}: answering question {n} gave {text!r}")
    return weighing


# -- 2025-11-25: questions are requests the tool call awaits ---------------------------------


async def push_era(label: str, *, bare: bool, tool: str, calls: int = PUSH_PENDING) -> Weighing:
    weighing = Weighing(label)
    holding = False
    arrived = 0
    all_arrived = anyio.Event()
    release = anyio.Event()
    wrong: list[str] = []

    async def callback(context: Any, params: Any) -> mcp_types.ElicitResult:
        nonlocal arrived
        if holding:
            arrived += 1
            if arrived == calls:
                all_arrived.set()
            await release.wait()
        return await accept_at_once(context, params)

    async with mcp.Client(
        stdio_params(bare=bare), mode="legacy", elicitation_callback=callback
    ) as client:
        if client.protocol_version != "2025-11-25":
            raise AssertionError(f"asked for 2025-11-25, got {client.protocol_version}")

        async def call(n: int) -> None:
            text = text_of(await client.call_tool(tool, {"n": n}))
            if text != f"{n}:answer-{n}":
                wrong.append(f"{n}: {text!r}")

        await parallel(range(WARM_UP), call)
        await weigh(client, weighing, 0, trace=True)
        holding = True
        started = time.perf_counter()
        with anyio.fail_after(TIME_LIMIT):
            async with anyio.create_task_group() as tasks:
                for n in range(calls):
                    tasks.start_soon(call, n)
                await all_arrived.wait()
                weighing.seconds = time.perf_counter() - started
                waiting = int(text_of(await client.call_tool("pending", {})))
                if waiting != calls:
                    raise AssertionError(f"{label}: {waiting} of {calls} pending at the server")
                await weigh(client, weighing, waiting)
                release.set()
        weighing.asked = calls
        raw = json.loads(text_of(await client.call_tool("memory", {})))
        weighing.released = {"traced": raw["traced"], "tasks": raw["tasks"]}
        if wrong:
            raise AssertionError(f"{label}: {len(wrong)} wrong answers, e.g. {wrong[:3]}")
    return weighing


# -- the report ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryResult(Result):
    """A memory comparison in ``Result``'s shape. The timings are the time per question
    asked; ``ratio`` is the memory one: ``LIMIT / our bytes per pending question`` when there
    is a target (``>= 1`` means under the limit), else the SDK's bytes / ours."""

    detail: str = ""

    def describe(self) -> str:
        if self.target is not None:
            return f"{fmt_ratio(self.ratio)} under the limit"
        return f"anchor holds {fmt_ratio(self.ratio)} as much"

    def line(self) -> str:
        return f"{self.claim}: {self.detail} {self.status}"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()

    def one(weighing: Callable[[], Awaitable[Weighing]]) -> Weighing:
        done = anyio.run(weighing)
        print("\n".join(done.lines()), flush=True)
        return done

    ours = one(
        lambda: rounds_era(
            "ours: ask + Elicitation, 2026-07-28", bare=False, tool="ours", checkpoints=CHECKPOINTS
        )
    )
    sdk = one(
        lambda: rounds_era(
            "SDK Resolve(Elicit), 2026-07-28",
            bare=True,
            tool="sdk_resolve",
            checkpoints=SDK_CHECKPOINTS,
        )
    )
    ours_push = one(lambda: push_era("ours: ask, 2025-11-25", bare=False, tool="ours"))
    sdk_push = one(lambda: push_era("SDK ctx.elicit, 2025-11-25", bare=True, tool="sdk_elicit"))
    print()

    ours_bytes, sdk_bytes = ours.per_pending(), sdk.per_pending()
    first = ours.per_pending(1)
    report.add(
        MemoryResult(
            TITLE,
            f"2026-07-28, {ours.counts[-1]:,} pending: server bytes per pending question",
            ours.timing(),
            sdk.timing(),
            LIMIT / max(ours_bytes, 1.0),
            1.0,
            detail=(
                f"ours {ours_bytes:,.1f} B ({ours.counts[1]:,} pending: {first:,.1f} B; "
                f"each question after the first {ours.counts[1]:,}: {ours.marginal():+,.1f} B; "
                f"limit {LIMIT:,} B, i.e. {fmt_ratio(LIMIT / max(ours_bytes, 1.0))} under it); "
                f"SDK Resolve(Elicit) {sdk_bytes:,.1f} B at {sdk.counts[-1]:,} pending "
                f"({sdk.marginal():+,.1f} B after the first {sdk.counts[1]:,})"
            ),
        )
    )
    push_ours, push_sdk = ours_push.per_pending(), sdk_push.per_pending()
    report.add(
        MemoryResult(
            TITLE,
            f"2025-11-25, {sdk_push.counts[-1]:,} pending: bytes per pending question",
            ours_push.timing(),
            sdk_push.timing(),
            push_sdk / push_ours,
            None,
            detail=(
                f"ours (ask) {push_ours / 1024:,.1f} KiB, SDK ctx.elicit {push_sdk / 1024:,.1f} "
                f"KiB (SDK/ours {push_sdk / push_ours:.2f})"
            ),
        )
    )
    return report.results


if __name__ == "__main__":
    run()
