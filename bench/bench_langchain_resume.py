"""Benchmark 17: a LangChain agent's elicitation round trip (``langchain.mcp``'s interrupt and
its resume), with ``review_interrupt`` + ``resume_from`` vs the resume built bare.

A real ``langchain.agents.create_agent`` (its model calls the tool, then says what it returned:
no LLM; ``tests/integrations/langchain_support.py``'s ``CallsOnce``) with an ``InMemorySaver``,
its tools from ``langchain.mcp.MCPAdapter`` on the official-SDK server
``tests/peer_servers/numbered_server.py`` over stdio on 2026-07-28 (tool ``ask``: one form
question), each contender on a server process of its own, connected once and kept warm. One
call is one whole round trip on a new thread: ``ainvoke`` (the model calls ``ask``, the server
asks, LangChain pauses the run with its interrupt), the resume built, ``ainvoke(Command(resume=
...))`` (LangChain calls the tool again, then with the answer; the model reads the result).

- **ours**: ``review_interrupt(interrupt, server=..., local=True)`` then ``resume_from(
  interrupt, answers, ...)`` (the request read and linted, the answer validated; no audit log);
- **anchor**: ``{"responses": {key: {"action": "accept", "content": ...}}}`` built from the
  interrupt straight away.

Both answer ``{"value": "answer-<n>"}``; the two are timed interleaved (``_timing.side_by_side``)
on an event loop in a helper thread. Also printed, for scale: review + resume in-process (no
I/O), and with ``to_json()`` (what a page is given).

Target: ours within 5 % of bare, i.e. ours/bare <= 1.05 (printed as anchor/ours >= 0.95x).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import _adapters
from _servers import reply_for
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
from langchain_core._api import suppress_langchain_beta_warning

with suppress_langchain_beta_warning():  # LangChainBetaWarning: langchain.mcp is in beta
    from langchain.mcp import MCPAdapter

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from mcp_elicit.integrations.langchain import resume_from, review_interrupt

TITLE = "Benchmark 17: LangChain agent, elicitation interrupt + resume, round trip (warm)"
MAX_SLOWDOWN = 1.05  # ours/bare
TARGET = 1 / MAX_SLOWDOWN  # anchor/ours, the convention of Result
ROUNDS_SCALE = 6  # many short paired runs, as in bench_fastmcp_client
RUN_SCALE = 1.5  # two round trips a run: one is too few to pair against the noise
N = 7
OURS = "ours: review_interrupt + resume_from"
BARE = "anchor: the resume built bare"

Resume = Callable[[Any], Any]


def answers_for(interrupt: Any) -> dict[str, Any]:
    (request,) = interrupt.value["requests"]
    return {request["key"]: {"action": "accept", "content": {"value": reply_for(N)}}}


def bare_resume(interrupt: Any) -> Any:
    return {"responses": answers_for(interrupt)}


def our_resume(interrupt: Any) -> Any:
    review_interrupt(interrupt, server="numbered-server", local=True)
    return resume_from(interrupt, answers_for(interrupt), server="numbered-server", local=True)


def round_trips(portal: BlockingPortal, agent: Any, resume: Resume) -> Loop:
    """``number`` whole round trips (question, interrupt, resume, answer), timed inside the
    event loop, gc off (``_adapters.round_trips``)."""

    async def once() -> str:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        state = await agent.ainvoke({"messages": [{"role": "user", "content": "ask"}]}, config)
        (interrupt,) = state["__interrupt__"]
        state = await agent.ainvoke(Command(resume=resume(interrupt)), config)
        return str(state["messages"][-1].text)

    return _adapters.round_trips(portal, once, str, f"tool said: {N}:{reply_for(N)}")


def in_process_ns(interrupt: Any, to_json: bool, number: int = 2_000) -> float:
    def one() -> None:
        review = review_interrupt(interrupt, server="numbered-server", local=True)
        if to_json:
            review.to_json()
        resume_from(interrupt, answers_for(interrupt), server="numbered-server", local=True)

    for _ in range(number // 10):
        one()
    start = time.perf_counter_ns()
    for _ in range(number):
        one()
    return (time.perf_counter_ns() - start) / number


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    from tests.integrations.langchain_support import agent_for

    report = Report(TITLE)
    report.header()
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(
            MCPAdapter(_adapters.fastmcp_stdio_transport())
        ) as ours_adapter,
        portal.wrap_async_context_manager(
            MCPAdapter(_adapters.fastmcp_stdio_transport())
        ) as bare_adapter,
    ):
        for adapter in (ours_adapter, bare_adapter):
            if adapter.client.protocol_version != "2026-07-28":
                raise AssertionError(f"expected 2026-07-28, got {adapter.client.protocol_version}")
        tools = portal.call(ours_adapter.list_tools), portal.call(bare_adapter.list_tools)
        ours_agent = agent_for("ask", tools[0], InMemorySaver(), args={"n": N})
        bare_agent = agent_for("ask", tools[1], InMemorySaver(), args={"n": N})
        contenders = [
            Contender(OURS, round_trips(portal, ours_agent, our_resume)),
            Contender(BARE, round_trips(portal, bare_agent, bare_resume)),
        ]
        timings = side_by_side(contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE)
        sample = portal.call(
            ours_agent.ainvoke,
            {"messages": [{"role": "user", "content": "ask"}]},
            {"configurable": {"thread_id": "sample"}},
        )["__interrupt__"][0]
    report.timings(timings)
    plain = in_process_ns(sample, to_json=False)
    shown = in_process_ns(sample, to_json=True)
    print(f"  review + resume in-process: {fmt_ns(plain)}; with to_json(): {fmt_ns(shown)}")
    ours_t, bare_t = timings[OURS], timings[BARE]
    ratio = paired_ratio(bare_t, ours_t)
    report.add(
        Result(
            TITLE,
            "LangChain interrupt round trip: review + resume_from vs bare resume",
            ours_t,
            bare_t,
            ratio,
            TARGET,
            note=(
                f"ours/bare = {1 / ratio:.3f} (target <= {MAX_SLOWDOWN:.2f}); in-process "
                f"review + resume {plain / bare_t.median:.2%} of the bare round trip"
            ),
        )
    )
    return report.results


if __name__ == "__main__":
    run()
