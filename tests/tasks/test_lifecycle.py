"""mcp_elicit.tasks.lifecycle, the memory engine: the compare-and-set, the wake-ups, and a
tool asking inside a task (commit, wait for the key's answer, settle; or withdraw on timeout)."""

from __future__ import annotations

import math
from typing import Any

import anyio
import pytest

from mcp_elicit.tasks import NO_CHANGE, TaskState, answer, cancel, create
from mcp_elicit.tasks.lifecycle import AskTimedOut, TaskBook, TaskGone

pytestmark = pytest.mark.anyio

FORM = {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}
ACCEPT = {"action": "accept", "content": {"name": "Ada"}}
T0 = 1_000_000.0


def clock() -> float:
    return T0


def book_with_task() -> TaskBook:
    book = TaskBook()
    book.insert(
        create(
            task_id="t1",
            server="s",
            user="alice",
            revision="2025-11-25",
            tool="book",
            now=T0,
            ttl_ms=60_000,
            poll_interval_ms=1_000,
            instance="memory",
            lease_until=math.inf,
        )
    )
    return book


def outstanding(book: TaskBook) -> dict[str, Any]:
    record = book.get("t1")
    assert record is not None
    return dict(record.outstanding)


def test_a_stale_write_is_refused_and_commit_retries_on_the_newest() -> None:
    book = book_with_task()
    first = book.get("t1")
    assert first is not None
    cancelled = cancel(first, now=T0)
    assert isinstance(cancelled, TaskState)
    assert book.replace(cancelled, expected_version=first.version)
    assert not book.replace(cancelled, expected_version=first.version)  # stale
    assert book.commit("t1", lambda r: cancel(r, now=T0)) is NO_CHANGE  # terminal
    with pytest.raises(KeyError):
        book.commit("nope", lambda r: cancel(r, now=T0))


async def test_ask_waits_for_its_key_and_settles_the_answer() -> None:
    book = book_with_task()
    got: list[Any] = []
    seen: list[tuple[str | None, str]] = []
    with book.observing(
        lambda before, after: seen.append((before and before.status, after.status))
    ):
        async with anyio.create_task_group() as group:

            async def asking() -> None:
                got.append(await book.ask("t1", FORM, now=clock, timeout=5))

            group.start_soon(asking)
            with anyio.fail_after(5):
                while not outstanding(book):
                    await anyio.sleep(0)
            (key,) = outstanding(book)
            assert key == "q-1"
            book.commit("t1", lambda r: answer(r, {key: ACCEPT}, now=T0)[0])
    assert got == [ACCEPT]
    record = book.get("t1")
    assert record is not None and record.answered["q-1"].settled
    assert ("working", "input_required") in seen and ("input_required", "working") in seen


async def test_ask_withdraws_its_key_on_timeout() -> None:
    book = book_with_task()
    with pytest.raises(AskTimedOut):
        await book.ask("t1", FORM, now=clock, timeout=0.05)
    record = book.get("t1")
    assert record is not None
    assert record.status == "working"
    assert record.withdrawn == {"q-1": "timeout"}


async def test_what_answer_refuses_is_delivered_to_the_asker_and_the_key_withdrawn() -> None:
    book = book_with_task()
    got: list[Any] = []
    async with anyio.create_task_group() as group:

        async def asking() -> None:
            got.append(await book.ask("t1", FORM, now=clock, timeout=5))

        group.start_soon(asking)
        with anyio.fail_after(5):
            while not outstanding(book):
                await anyio.sleep(0)
        book.deliver("t1", "q-1", {"action": "maybe"})
    assert got == [{"action": "maybe"}]
    record = book.get("t1")
    assert record is not None and record.withdrawn == {"q-1": "refused"}


async def test_a_task_cancelled_while_its_tool_asks_ends_the_ask() -> None:
    book = book_with_task()
    async with anyio.create_task_group() as group:

        async def asking() -> None:
            with pytest.raises(TaskGone):
                await book.ask("t1", FORM, now=clock, timeout=5)

        group.start_soon(asking)
        with anyio.fail_after(5):
            while not outstanding(book):
                await anyio.sleep(0)
        book.commit("t1", lambda r: cancel(r, now=T0))
    with pytest.raises(TaskGone):  # nothing more is asked in it
        await book.ask("t1", FORM, now=clock, timeout=5)
