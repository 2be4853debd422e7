"""Flows on several instances: a store with a finish feed wakes every instance's waiters when
any instance finishes a flow; without one (or when it fails), polling still finds it.

The feed here is a test double on the memory store (a broadcast through memory streams); the
Redis and PostgreSQL feeds are tested with their engines."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

import anyio
import pytest

from mcp_elicit.flows import Flows
from mcp_elicit.stores import FinishFeed, FlowRecord, MemoryStore, StoreError

pytestmark = pytest.mark.anyio

NEVER = 3600.0  # a poll that never comes within a test: only the feed can wake a waiter


class BroadcastStore(MemoryStore):
    """One store several "instances" share, with a feed; ``broken`` makes the next listen
    fail once (a dropped connection)."""

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[anyio.abc.ObjectSendStream[str]] = []
        self.announced: list[str] = []
        self.broken = 0

    async def announce_finished(self, flow_id: str) -> None:
        self.announced.append(flow_id)
        for listener in list(self._listeners):
            await listener.send(flow_id)

    async def finished_flows(
        self, listening: Callable[[], None] | None = None
    ) -> AsyncIterator[str]:
        if self.broken:
            self.broken -= 1
            raise StoreError("the connection to the store was lost")
        send, receive = anyio.create_memory_object_stream[str | StoreError](100)
        self._listeners.append(send)  # type: ignore[arg-type]
        if listening is not None:
            listening()
        try:
            async for item in receive:
                if isinstance(item, StoreError):
                    raise item
                yield item
        finally:
            self._listeners.remove(send)  # type: ignore[arg-type]

    async def drop(self) -> None:
        """Every listener's connection is lost."""
        for listener in list(self._listeners):
            await listener.send(StoreError("the connection was lost"))  # type: ignore[arg-type]


def test_the_double_is_a_feed_and_the_plain_engines_are_not() -> None:
    assert isinstance(BroadcastStore(), FinishFeed)
    assert not isinstance(MemoryStore(), FinishFeed)


async def test_a_completion_on_one_instance_wakes_a_waiter_on_another_at_once() -> None:
    store = BroadcastStore()
    a = Flows(store, server="s", poll_interval=NEVER)
    b = Flows(store, server="s", poll_interval=NEVER)
    seen_on_a: list[str] = []
    flow = await a.start(user="alice", purpose="secret", ttl=600)
    with anyio.fail_after(10), a.observing_finishes(seen_on_a.append):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(a.run_feed)
            await anyio.sleep(0.05)  # a listens

            async def finish_on_b() -> None:
                await anyio.sleep(0.05)
                await b.complete(flow.id, user="alice")

            tasks.start_soon(finish_on_b)
            done = await a.wait(flow.id, timeout=None)
            tasks.cancel_scope.cancel()
    assert done.status.value == "completed"
    assert seen_on_a == [flow.id]  # the completion-notice watcher on a hears of it too
    assert store.announced == [flow.id]


async def test_without_the_feed_only_the_instance_that_finished_hears_of_it() -> None:
    store = BroadcastStore()
    a = Flows(store, server="s", poll_interval=NEVER)
    b = Flows(store, server="s", poll_interval=NEVER)
    seen_on_a: list[str] = []
    seen_on_b: list[str] = []
    flow = await a.start(user="alice", purpose="secret", ttl=600)
    with a.observing_finishes(seen_on_a.append), b.observing_finishes(seen_on_b.append):
        await b.complete(flow.id, user="alice")
    assert seen_on_b == [flow.id] and seen_on_a == []  # a must read the store to know


async def test_a_lost_feed_is_listened_to_again_and_the_store_still_has_the_truth(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = BroadcastStore()
    store.broken = 1
    a = Flows(store, server="s", poll_interval=NEVER)
    b = Flows(store, server="s", poll_interval=NEVER)
    flow = await a.start(user="alice", purpose="secret", ttl=600)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: a.run_feed(retry_after=0.05))
            while not store._listeners:  # it failed once, then listened again
                await anyio.sleep(0.01)
            await b.complete(flow.id, user="alice")
            assert (await a.wait(flow.id, timeout=None)).status.value == "completed"
            tasks.cancel_scope.cancel()
    assert "listening for other instances' finished flows failed" in caplog.text


async def test_a_failed_announcement_does_not_undo_the_completion(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Mute(BroadcastStore):
        async def announce_finished(self, flow_id: str) -> None:
            raise StoreError("down")

    store = Mute()
    flows = Flows(store, server="s")
    flow = await flows.start(user="alice", purpose="secret", ttl=600)
    with caplog.at_level(logging.WARNING):
        done = await flows.complete(flow.id, user="alice")
    assert done.status.value == "completed"
    assert (await flows.get(flow.id)).status.value == "completed"  # type: ignore[union-attr]
    assert "other instances were not told it finished" in caplog.text


async def test_run_feed_returns_at_once_for_a_store_without_one() -> None:
    with anyio.fail_after(1):
        await Flows(MemoryStore(), server="s").run_feed()


class CountingReads(BroadcastStore):
    """Counts the reads of each flow: how often a waiter looks at the store."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        self.reads += 1
        return await super().get_flow(flow_id)


async def test_while_the_feed_listens_a_waiter_reads_the_store_only_as_a_backstop() -> None:
    """A thousand waiters on one instance must not poll a shared store four times a second
    each: while the feed listens they read it every ``backstop_interval``."""
    store = CountingReads()
    a = Flows(store, server="s", poll_interval=0.01, backstop_interval=NEVER)
    flow = await a.start(user="alice", purpose="secret", ttl=600)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(a.run_feed)
            while not a.feed_listening:
                await anyio.sleep(0.01)
            assert a.read_interval == NEVER
            tasks.start_soon(lambda: a.wait(flow.id, timeout=None))
            await anyio.sleep(0.3)  # 30 polls' worth at poll_interval
            assert store.reads <= 2, store.reads
            tasks.cancel_scope.cancel()


async def test_when_the_feed_is_lost_waiters_read_at_once_and_poll_often_again() -> None:
    """A completion announced while nobody listens is lost; the waiters, woken when the
    feed dropped, poll at ``poll_interval`` and find it there, long before the backstop."""
    store = BroadcastStore()
    a = Flows(store, server="s", poll_interval=0.05, backstop_interval=NEVER)
    b = Flows(store, server="s")
    flow = await a.start(user="alice", purpose="secret", ttl=600)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: a.run_feed(retry_after=NEVER))
            while not a.feed_listening:
                await anyio.sleep(0.01)
            done: list[str] = []

            async def wait() -> None:
                done.append((await a.wait(flow.id, timeout=None)).status.value)

            tasks.start_soon(wait)
            await anyio.sleep(0.05)  # a waits, at the backstop's pace
            await store.drop()
            while a.feed_listening:
                await anyio.sleep(0.01)
            assert a.read_interval == 0.05
            await b.complete(flow.id, user="alice")  # announced to nobody
            while not done:
                await anyio.sleep(0.01)
            tasks.cancel_scope.cancel()
    assert done == ["completed"]


def test_the_backstop_interval_is_checked() -> None:
    with pytest.raises(ValueError, match="backstop_interval"):
        Flows(MemoryStore(), backstop_interval=0)
