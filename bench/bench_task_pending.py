"""Benchmark 18: the server's memory per task waiting for input (the tasks extension).

A task that asks a question keeps its tool running, suspended in ``ask`` inside the server's
task group, and keeps its record with the outstanding request until ``tasks/update`` answers
it. This weighs that, as benchmark 7 weighs a pending question (``bench_server_pending.py``,
whose ``Weighing``, ``weigh`` and ``parallel`` it uses): a stdio subprocess of
``_server_tools.py`` per contender, the official SDK's ``mcp.Client(mode="auto")``, and the
server's ``memory()`` tool (``tracemalloc``'s bytes still alive after ``gc.collect()``, the
RSS, the live asyncio tasks).

- **ours, tasks** (the target): the ``--tasks`` server (``Elicitation(..., tasks=True)``,
  the one local user allowed any number of tasks). After ``WARM_UP`` tasks run to the end
  (asked, answered, completed: they stay in the book, in the baseline), ``memory(trace=True)``
  reads the baseline; then ``WORKERS`` callers start ``PENDING`` tasks of tool ``ours(n)``,
  each a ``tools/call`` declaring ``io.modelcontextprotocol/tasks`` (a ``CreateTaskResult``)
  followed by ``tasks/get`` (every ``POLL_WAIT``) until ``input_required`` with
  ``Question <n>?`` under its key; none is answered. The server is weighed at each of
  ``CHECKPOINTS`` waiting tasks. Bytes per waiting task = (traced then - baseline) /
  waiting. At the end the first and the last are answered (``tasks/update``, then
  ``tasks/get`` until ``completed``): each must return ``"<n>:answer-<n>"``, so they were
  live tasks.
- **the anchor, plain 2026-07-28** (the ratio, no target): the same number of questions
  pending as ``InputRequiredResult``s the client keeps, on benchmark 7's server (with
  ``Elicitation``, tasks off; its ``rounds_era``, at the same checkpoints). The server holds
  nothing per question there (benchmark 7: ~10 B at 10,000, the one-off spread), so
  task/plain is large and says only that a task is held by the server and a plain question
  by the client.
- **the push era, 2025-11-25** (the target's yardstick): ``PENDING`` calls of ``ours(n)`` at
  once, each awaiting its ``elicitation/create`` (benchmark 7's ``push_era``): the other way
  a server keeps a suspended tool call per question.

Target: a waiting task costs at most **2x** a pending 2025-11-25 question (measured in the
same run). Why that and not a multiple of the plain 2026-07-28 question: the plain question is
stateless on the server (about zero bytes), so no multiple of it can be met by anything that
keeps a tool running. A waiting task keeps what a push-era call keeps (the tool's coroutine,
its asyncio task and cancel scope), less the outgoing request's stream and waiter, plus the
task's record (its question, the schema, the status); twice the push-era call leaves room for
the record without letting a per-task leak through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import anyio
import mcp
from _server_tools import stdio_params
from _task_raw import Raw
from _timing import DEFAULT_LOOP_MS, DEFAULT_REPEATS, Report, Result, fmt_ratio
from bench_server_pending import (
    TIME_LIMIT,
    WARM_UP,
    MemoryResult,
    Weighing,
    parallel,
    push_era,
    rounds_era,
    weigh,
)
from bench_server_roundtrip import accept_at_once

TITLE = "Benchmark 18: server memory per task waiting for input (tasks extension, 2026-07-28)"
PENDING = 1_000
CHECKPOINTS = (500, PENDING)  # waiting tasks at which the server is weighed
POLL_WAIT = 0.02  # s between two tasks/get of one task (64 callers polling at once otherwise
# flood the server; the time is not what this benchmark measures)
MAX_TIMES_PUSH = 2.0  # target: bytes per waiting task <= this x a pending 2025-11-25 question


async def tasks_era(label: str) -> Weighing:
    weighing = Weighing(label)
    waiting: dict[int, tuple[str, str]] = {}  # n -> (task id, key)
    async with mcp.Client(
        stdio_params(bare=False, tasks=True), mode="auto", elicitation_callback=accept_at_once
    ) as client:
        raw = Raw(client)
        for n in range(WARM_UP):  # whole tasks, answered: caches and pools warm
            if (text := await raw.as_task("ours", -1 - n)) != f"{-1 - n}:answer-{-1 - n}":
                raise AssertionError(f"{label}: warm-up task {-1 - n} returned {text!r}")

        async def start_one(n: int) -> None:
            task_id = await raw.start_task("ours", n)
            waiting[n] = (task_id, await raw.waiting_question(task_id, n, wait=POLL_WAIT))

        await weigh(client, weighing, 0, trace=True)
        started = time.perf_counter()
        done = 0
        with anyio.fail_after(TIME_LIMIT):
            for checkpoint in CHECKPOINTS:
                await parallel(range(done, checkpoint), start_one)
                done = checkpoint
                await weigh(client, weighing, len(waiting))
        weighing.seconds = time.perf_counter() - started
        weighing.asked = len(waiting)
        # Live tasks: the first and the last are answered now.
        for n in (0, done - 1):
            task_id, key = waiting[n]
            if (text := await raw.answer_task(task_id, key, n)) != f"{n}:answer-{n}":
                raise AssertionError(f"{label}: answering task {n} gave {text!r}")
    return weighing


@dataclass(frozen=True)
class TaskMemoryResult(MemoryResult):
    def describe(self) -> str:
        return f"{fmt_ratio(self.ratio)} under the limit"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()

    def one(weighing: Weighing) -> Weighing:
        print("\n".join(weighing.lines()), flush=True)
        return weighing

    tasks = one(anyio.run(tasks_era, "ours: waiting tasks (tasks=True), 2026-07-28"))
    plain = one(
        anyio.run(
            lambda: rounds_era(
                "anchor: plain pending questions (InputRequiredResult), 2026-07-28",
                bare=False,
                tool="ours",
                checkpoints=CHECKPOINTS,
            )
        )
    )
    push = one(
        anyio.run(
            lambda: push_era(
                "yardstick: ask, pending 2025-11-25 calls", bare=False, tool="ours", calls=PENDING
            )
        )
    )
    print()
    task_bytes, plain_bytes, push_bytes = (
        tasks.per_pending(),
        plain.per_pending(),
        push.per_pending(),
    )
    limit = MAX_TIMES_PUSH * push_bytes
    report.add(
        TaskMemoryResult(
            TITLE,
            f"2026-07-28, {tasks.counts[-1]:,} waiting: server bytes per waiting task",
            tasks.timing(),
            plain.timing(),
            limit / max(task_bytes, 1.0),
            1.0,
            detail=(
                f"ours {task_bytes / 1024:,.1f} KiB per waiting task ({tasks.counts[1]:,} "
                f"waiting: {tasks.per_pending(1) / 1024:,.1f} KiB; each after the first "
                f"{tasks.counts[1]:,}: {tasks.marginal() / 1024:+,.1f} KiB); plain 2026-07-28 "
                f"pending question {plain_bytes:,.1f} B (task/plain "
                f"{task_bytes / max(plain_bytes, 1.0):,.0f}x, no target: the plain one is "
                f"held by the client); pending 2025-11-25 call {push_bytes / 1024:,.1f} KiB "
                f"(task/push {task_bytes / push_bytes:.2f}, target <= {MAX_TIMES_PUSH:g}: "
                f"limit {limit / 1024:,.1f} KiB)"
            ),
        )
    )
    return report.results


if __name__ == "__main__":
    run()
